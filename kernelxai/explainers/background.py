"""Background samples: smaller stand-ins for a large reference sample, with what they cost.

The interventional, observational and model-call value functions average over
a background sample, at a cost proportional to its size (and for the
observational game, its cube). A large sample can be replaced by

* :func:`subsample` -- n rows drawn uniformly without replacement;
* :func:`summarize` -- n points chosen to represent the whole sample: k-means
  centres (``method="kmeans"``) or kernel herding (``method="herding"``,
  greedy minimisation of the MMD to the sample). The summary reports the
  maximum mean discrepancy (MMD) between itself and the full sample, so the
  reader knows how far the smaller background is from the one it replaces;
* :func:`summary_bound` -- how far that can move a model's interventional
  Shapley values: ||f||_H times Shapley-weighted MMDs of the marginals, per
  feature (the Cauchy-Schwarz step of RKHS-SHAP Theorem 6).

Mean embeddings over a background are reductions computed in blocks of at
most ``max_elements`` numbers: a background of 10^6 rows is reduced block by
block, never held as a kernel matrix larger than that budget. The blocks are
grouped in parts that run on ``n_jobs`` workers, or on a Dask cluster inside
``joblib.parallel_config(backend="dask")``, with the same result wherever they
run (:func:`kernelxai.parallel.reduce_rows`). An MMD against N rows costs N^2
kernel values; above ``kx.config_context(max_cost=...)`` it refuses before
starting.

The value functions take unweighted backgrounds: pass ``summary.points``.
``summary.mmd`` is the MMD of exactly that unweighted background;
``summary.weighted_mmd`` that of the points with their ``weights`` (the k-means
cluster sizes), which a weighted background would achieve.

Example: a summary is closer than a subsample
---------------------------------------------
>>> import numpy as np, kernelxai as kx
>>> X = np.random.default_rng(0).normal(size=(500, 3))
>>> s = kx.background.summarize(X, 20, method="herding", seed=0)
>>> s.points.shape, bool(s.mmd < kx.background.mmd(kx.background.subsample(X, 20, seed=0), X))
((20, 3), True)
"""

from __future__ import annotations

from .background_bound import SummaryBound, summary_bound
from .background_summaries import BackgroundSummary, mean_embedding, mmd, subsample, summarize

__all__ = ["subsample", "summarize", "mmd", "BackgroundSummary", "summary_bound", "SummaryBound", "mean_embedding"]
