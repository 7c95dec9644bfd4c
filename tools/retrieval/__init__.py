"""Retrieval tools of the Researcher: lexical, dense and graph search, fusion, reranking,
tree expansion, over one contract or a corpus of contracts."""
