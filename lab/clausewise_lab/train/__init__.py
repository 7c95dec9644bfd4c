"""Training pipelines for the models Clausewise ships (today: the cross-encoder reranker).

Everything here is development tooling: the product never imports it, so heavy libraries
(torch, sentence-transformers, datasets) are imported inside the functions that need them.
"""
