"""Near duplicates across splits: MinHash (datasketch) over token shingles of the Python source.

Informational: the grammar shares a vocabulary and idioms, so similar programs are expected; exact
normalized duplicates across splits are a failure (``ids.DuplicatesAcrossSplits``).
"""

from __future__ import annotations

import random
import re

from builder.checks.base import MAX_OFFENDERS, ConfigCheck, Result
from builder.checks.ids import programs

THRESHOLD = 0.9  # Jaccard similarity above which two programs count as near duplicates
SAMPLE_CAP = 2000  # rows per split fed to MinHash
SHINGLE = 5  # tokens per shingle
NUM_PERM = 64


def byte_shingles(text: str) -> set[bytes]:
    tokens = re.findall(r"\w+|[^\w\s]", text)
    return {" ".join(tokens[i : i + SHINGLE]).encode() for i in range(max(1, len(tokens) - SHINGLE + 1))}


class NearDuplicates(ConfigCheck):
    name = "near_duplicates_across_splits"

    def check(self, config, tables):
        from datasketch import MinHash, MinHashLSH

        rng = random.Random(0)  # which rows are sampled is part of the report: fixed
        lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
        sketches: dict[str, list] = {}
        for split, t in programs(config, tables).items():
            rows = list(zip(t.column("id").to_pylist(), t.column("python_source").to_pylist()))
            if len(rows) > SAMPLE_CAP:
                rows = rng.sample(rows, SAMPLE_CAP)
            sketches[split] = []
            for rid, src in rows:
                m = MinHash(num_perm=NUM_PERM, seed=1)
                m.update_batch(list(byte_shingles(src or "")))
                sketches[split].append((rid, m))
                lsh.insert(f"{split}\t{len(sketches[split])}\t{rid}", m)  # the position keeps keys unique
        hits = [
            rid
            for split, sk in sketches.items()
            for rid, m in sk
            if any(key.split("\t", 1)[0] != split for key in lsh.query(m))
        ]
        checked = sum(len(sk) for sk in sketches.values())
        rate = len(hits) / checked if checked else 0.0
        message = (
            f"{len(hits)}/{checked} sampled rows have a MinHash (Jaccard>={THRESHOLD}, "
            f"{SHINGLE}-token shingles) neighbour in another split ({100 * rate:.2f}%)"
        )
        data = {"rate": round(rate, 4), "sampled": checked}
        return Result(self.name, config, "info", message, len(hits), hits[:MAX_OFFENDERS], data)
