"""Engines run shard jobs: ``local`` (this process or a process pool) and ``ray`` (Ray core tasks).

Both run ``builder.dataset.shards.run_shard`` and report each finished shard to the driver's callback, so they
write the same files and share completion records (--resume works across engines).
"""

MAX_RETRIES = 3  # per shard: transient errors and killed workers
