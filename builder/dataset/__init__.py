"""The build driver: a request's shards written by their row sources (``shards``) on a local pool or Ray
(``engines``), committed atomically into the folder (``destination``, ``storage``), with a manifest written last."""
