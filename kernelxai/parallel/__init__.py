"""Many explained points at once: chunks of rows run with joblib, on one machine or a Dask cluster.

Takes the work to run as a callable (it never imports the entry points that call it) and
hands back the results in order, bit for bit what a serial run gives. The drivers of
``kx.explain`` and ``kx.explain_interactions`` that hand it their work live with the entry
points (:mod:`kernelxai.explainers`).

``kx.explain(..., n_jobs=...)`` and ``kx.explain_interactions(..., n_jobs=...)`` cut
the rows of ``X`` into chunks and run the chunks with :mod:`joblib` -- scikit-learn's
convention, so the same call runs on worker processes (joblib's default ``"loky"``
backend), on threads, or on a Dask cluster inside
``joblib.parallel_config(backend="dask")``, with nothing kernelxai-specific to learn.
``n_jobs`` means what it means in scikit-learn: ``None`` is one worker unless an
enclosing ``joblib.parallel_config(n_jobs=...)`` (or the Dask backend, which uses
its workers) says otherwise, ``-1`` is all CPUs, ``-2`` all but one.

How the rows are cut
--------------------
The partition depends on the problem only, never on ``n_jobs``, the backend or the
machine. The estimator's cost model (the same one behind ``method="auto"``, the
progress bar and ``max_cost``) is asked for the cost of all rows and of one row;
the difference is the work per row, the rest is the work every chunk repeats (the
observational game factorises the background's Gram matrix of every coalition once
per call, whatever the number of rows). A chunk gets about :data:`CHUNK_SECONDS` of
estimated work, and at least enough rows that the repeated work is at most
:data:`MAX_REPEATED_SHARE` of it; no more rows than keep the estimator's own peak
memory estimate within ``kx.config_context(max_memory=...)``. A call whose work
fits in one chunk is the plain serial call, unchanged, whatever ``n_jobs``.

Why the results are identical
-----------------------------
Every chunk runs the same code on the same rows wherever it runs, and on one thread:
one BLAS thread (threaded BLAS splits its work by thread count and can round
differently -- measured for GP-SHAP's covariances) and one thread of the product
routes' own term-block pool (whose per-thread partial sums depend on scheduling). So
the values are the same to the last bit for any ``n_jobs`` and backend, exact routes
and sampled ones. With one worker the chunks run in this process: one after the other
for ``n_jobs=1``, and on as many threads as there are CPUs for ``n_jobs=None`` -- the
cores the BLAS and the product routes would otherwise use inside one big call.

For sampled estimators the randomness is the same in every chunk: the estimators
draw *one* set of coalitions (or orderings) for all the rows they explain -- a common
design, one factorisation for all rows -- so every chunk is given the same seed and
draws the same design as the serial call. ``seed=None`` is resolved once, here, to
fresh entropy shared by all chunks; a ``numpy.random.Generator`` is copied into every
chunk (each starts from the caller's state) and afterwards left where the serial call
would leave it. The draws therefore depend neither on ``n_jobs`` nor on the chunking;
a different ``rows_per_chunk`` changes only how the arithmetic is blocked (rounding).
``method="auto"`` is resolved once, on all rows (the cheapest route can depend on the
number of rows).

Shipping the model once
-----------------------
The value function -- the model, converted once to a kernel expansion, and the
background, both validated once -- is built in this process and handed to the
chunks as one object. Under the Dask backend joblib scatters every argument whose
``dask.sizeof`` exceeds 1 kB once per call and lets the workers share it
(:class:`Shipped` reports the size of what it holds, so the value function
qualifies); under loky, arrays above 1 MB are memory-mapped once and the rest of
the object is small. Only the chunk's rows travel with each task.

A few rows, a large background
------------------------------
One explained point makes one chunk, yet its interventional mean embeddings sum over
every background row (10^6 rows: minutes). That sum is a reduction, and
:func:`reduce_rows` runs it in parts of a fixed number of rows (from the problem's size
only) on the workers of the call -- ``kx.explain``'s ``n_jobs`` reaches it through
:func:`reduction_jobs`, and an enclosing Dask backend sends the parts to the cluster --
adding the parts' sums in part order as they arrive. Inside a chunk that already runs on
a worker the parts run one after the other, so workers are never nested.

Estimators whose rows depend on each other cannot be chunked: Bayesian SHAP with
``target_width`` draws coalitions until the widest interval *over the explained
rows* is narrow enough; it runs as one call, and asking for workers is refused.

The parts of the package
------------------------
Chunking
    ``n_jobs``, ``rows_per_chunk`` and the partition (:func:`plan_rows`).
Running
    running chunks of rows, in order, wherever they run (:func:`run_rows`).
Reductions
    sums over the parts of many rows (:func:`reduce_rows`).
Merging
    one Explanation and one ``meta`` from the chunks' (:func:`concat_results`).
Seeding
    the same random draws in every chunk (:func:`shared_seed`).
"""

from ._chunking import CHUNK_SECONDS, MAX_REPEATED_SHARE, plan_rows, row_chunks
from ._reductions import reduce_rows
from ._runner import Shipped, run_rows

__all__ = ["run_rows", "reduce_rows", "row_chunks", "plan_rows", "Shipped", "CHUNK_SECONDS", "MAX_REPEATED_SHARE"]
