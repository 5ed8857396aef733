"""The validation report: every result, a one-screen summary, and the JSON written by ``--json``."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from builder.checks.base import Result


@dataclass
class Report:
    source: str
    configs: dict[str, dict[str, int]]  # rows per config and split
    checks: list[Result]
    seconds: float = 0.0

    @property
    def failures(self) -> list[Result]:
        return [c for c in self.checks if c.status == "fail"]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "ok": self.ok,
            "seconds": round(self.seconds, 2),
            "configs": self.configs,
            "checks": [asdict(c) for c in self.checks],
        }

    def summary(self) -> str:
        sizes = ", ".join(
            f"{cfg} ({', '.join(f'{s}={n}' for s, n in splits.items())})" for cfg, splits in self.configs.items()
        )
        lines = [f"validate {self.source}: {sizes}"]
        for c in self.checks:
            line = f"  {c.status.upper():4} {c.config + ':' if c.config else ''}{c.name}: {c.message}"
            if c.offenders:
                line += f" [first: {', '.join(c.offenders)}]"
            lines.append(line)
        fails = self.failures
        tail = f"; failed: {', '.join(f'{c.config}:{c.name}' for c in fails)}" if fails else ""
        lines.append(
            f"{'FAILED' if fails else 'OK'}: {len(self.checks) - len(fails)}/{len(self.checks)} checks "
            f"passed or informational in {self.seconds:.1f}s{tail}"
        )
        return "\n".join(lines)

    def failure_line(self) -> str:
        """The failed checks on one line (what a refused push prints)."""
        return "; ".join(f"{c.config + ':' if c.config else ''}{c.name}: {c.message}" for c in self.failures)
