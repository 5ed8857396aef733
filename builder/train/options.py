"""Typed options of a training run and of its model, validated on construction; saved in the run folder."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from builder.configs import REGISTRY, names
from builder.errors import ConfigError

# a model is trained on one unit (cuda-forward, cuda-backward, cpu): configs whose rows all hold the same one
TRAINABLE = tuple(n for n, s in REGISTRY.items() if s.ir and s.single_unit)
# written code to mix in (--mix-config): shipped configs for training, whose rows of the trained unit are kept
MIXABLE = names(shipped=True)


def _opt(default, help: str):
    return field(default=default, metadata={"help": help})


def _positive(obj, names: tuple[str, ...], allow_zero: bool = False) -> None:
    for name in names:
        value = getattr(obj, name)
        low = 0 if allow_zero else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            kind = "a non-negative" if allow_zero else "a positive"
            raise ConfigError(f"{name} must be {kind} integer, got {value!r}")


@dataclass(frozen=True)
class ModelOptions:
    """A Llama-style decoder (RoPE, RMSNorm, SwiGLU) built from ``transformers.LlamaConfig``, random init."""

    layers: int = _opt(4, "transformer blocks")
    hidden: int = _opt(256, "model width")
    heads: int = _opt(4, "attention heads (must divide --hidden)")
    intermediate: int = _opt(0, "MLP width (0: about 8/3 x --hidden, rounded to 64)")
    vocab_size: int = _opt(8192, "BPE vocabulary size, special tokens included")

    def __post_init__(self) -> None:
        _positive(self, ("layers", "hidden", "heads", "vocab_size"))
        _positive(self, ("intermediate",), allow_zero=True)
        if self.hidden % self.heads:
            raise ConfigError(f"heads ({self.heads}) must divide hidden ({self.hidden})")
        if self.vocab_size < 300:  # 256 byte-level symbols + the special tokens must fit
            raise ConfigError(f"vocab_size must be at least 300 (byte-level BPE), got {self.vocab_size}")

    @property
    def mlp_width(self) -> int:
        return self.intermediate or max(64, round(self.hidden * 8 / 3 / 64) * 64)


@dataclass(frozen=True)
class TrainOptions:
    data: str
    out: str
    config: str = _opt("cpu", f"dataset config to train on ({', '.join(TRAINABLE)})")
    seed: int = _opt(0, "run seed: model init, shuffle order and sampling derive from it")
    max_steps: int = _opt(1000, "stop after this many optimizer steps")
    max_minutes: float = _opt(0.0, "also stop after this many minutes of training (0: no time limit)")
    batch_size: int = _opt(16, "rows per optimizer step")
    # 2,048 / 1,024: whole rows. On the first 1,000 train rows of a cpu build (identifier-piece tokenizer at
    # 8,192 tokens) the source's p95 is 246 tokens and max 400, the ir's p95 1,342 and max 2,884.
    max_length: int = _opt(2048, "tokens per training sequence (prompt + completion); longer rows are truncated")
    max_prompt: int = _opt(1024, "at most this many prompt tokens; a longer source keeps its last tokens")
    lr: float = _opt(1e-3, "peak learning rate (AdamW), reached after --warmup-steps, then cosine to 10%")
    warmup_steps: int = _opt(50, "linear warm-up steps")
    weight_decay: float = _opt(0.01, "AdamW weight decay")
    buffer_size: int = _opt(256, "shuffle buffer of the streamed train split, in rows (0: stream order)")
    tokenizer_rows: int = _opt(0, "train rows the BPE tokenizer is trained on (0: the whole train split)")
    # runs that must share one tokenizer (the probes) train it once: the same bytes as training it again
    tokenizer: str = _opt("", "use this tokenizer.json instead of training one on --data")
    # a fraction of the data at the same steps shows what more data buys (the same first rows for every seed)
    train_rows: int = _opt(0, "train on the first N rows of the train split, in stored order (0: every row)")
    # written kernels beside the generated ones: real's train split's rows of the same target and pass, drawn in
    # this share of the rows (oversampled: an epoch ends when the train split is exhausted)
    mix_config: str = _opt("", "also train on this config's train split (real), rows of --config's target")
    mix_share: float = _opt(0.0, "share of training rows drawn from --mix-config (0 < share <= 1; 1: only those)")
    mix_data: str = _opt("", "folder or Hub id holding --mix-config (default: --data)")
    # a second phase of training: the weights (and tokenizer) of an earlier run, new data, a fresh optimizer
    init_from: str = _opt("", "start from the weights and tokenizer of this run folder's latest checkpoint")
    save_every: int = _opt(100, "write a checkpoint every N steps (and at the end)")
    keep: int = _opt(2, "checkpoints kept on disk, newest first (0: keep every one)")
    log_every: int = _opt(10, "print and log loss and tokens/s every N steps")
    model: ModelOptions = field(default_factory=ModelOptions)

    def __post_init__(self) -> None:
        if isinstance(self.model, dict):
            object.__setattr__(self, "model", ModelOptions(**self.model))
        if self.config not in TRAINABLE:
            raise ConfigError(f"cannot train on config {self.config!r}; valid: {', '.join(TRAINABLE)}")
        _positive(self, ("max_steps", "batch_size", "max_length", "max_prompt", "save_every", "log_every"))
        counts = ("seed", "warmup_steps", "buffer_size", "tokenizer_rows", "train_rows", "keep")
        _positive(self, counts, allow_zero=True)
        if self.max_prompt >= self.max_length:
            raise ConfigError(f"max_prompt ({self.max_prompt}) must be below max_length ({self.max_length})")
        if not self.max_minutes >= 0:
            raise ConfigError(f"max_minutes must be >= 0, got {self.max_minutes!r}")
        if bool(self.mix_config) != bool(self.mix_share):
            raise ConfigError("mix_config and mix_share go together (a config to mix in and its share of the rows)")
        if self.mix_config and self.mix_config not in MIXABLE:
            raise ConfigError(f"cannot mix in config {self.mix_config!r}; valid: {', '.join(MIXABLE)}")
        if self.mix_config and not (isinstance(self.mix_share, (int, float)) and 0 < self.mix_share <= 1):
            raise ConfigError(f"mix_share must be in (0, 1], got {self.mix_share!r}")
        if self.mix_data and not self.mix_config:
            raise ConfigError("mix_data names where --mix-config is; give --mix-config and --mix-share too")
        if not (self.lr > 0 and self.weight_decay >= 0):
            raise ConfigError(f"lr must be > 0 and weight_decay >= 0, got {self.lr!r}, {self.weight_decay!r}")

    def to_dict(self) -> dict:
        return asdict(self)
