"""Converters: fitted models of other libraries, turned exactly into kernel expansions."""
