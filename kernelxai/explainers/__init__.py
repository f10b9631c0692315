"""The entry points: from what the user passed to an Explanation.

Takes everything below (models, value functions, games, estimators, parallel,
Explanation). Hands Explanations to the user: ``explain``,
``explain_interactions``, ``explain_gp``, ``explain_mmd`` / ``explain_hsic``,
``explain_r2``, ``shapley_values``, the Shapley functionals and the background
summaries.
"""
