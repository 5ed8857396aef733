"""The config registry: one ``ConfigSpec`` per config, the only place a config's name is given meaning.

Code that used to ask ``config == "gpu-verified"`` asks the spec (``spec(config).gpu``); adding a config is one
entry here and its row source (``builder.sources``). A config is a *dataset* config (what ``load_dataset`` takes);
an emitted ``Unit`` (a target and a pass: cuda-forward, cuda-backward, cpu) is what Warp's code generator writes
for one kernel, and several configs hold several units (gpu-verified both CUDA passes, real all three).
Like ``datasets``' ``BUILDER_CONFIGS``: typed entries that validate themselves, looked up by name in one place, an
unknown name failing with the list of valid ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from builder.errors import ConfigError
from builder.rng import SPLITS

# builder.sources: drawn programs, the kernels packages ship, variants of those kernels, or drawn programs broken
SOURCES = ("generated", "standalone", "shipped", "derived", "repair")
USES = ("training", "evaluation", "both")  # what a config's rows are for


@dataclass(frozen=True)
class Unit:
    """One function Warp emits for a kernel: a target, a pass and the suffix of its symbol."""

    name: str  # cuda-forward, cuda-backward, cpu: also the name of the config that holds this unit alone
    target: str  # cuda or cpu
    pass_: str  # forward or backward
    suffix: str  # the emitted function's name is the kernel's C++ name plus this

    def as_tuple(self) -> tuple[str, str, str]:
        return self.target, self.pass_, self.suffix


UNITS: dict[str, Unit] = {
    u.name: u
    for u in (
        Unit("cuda-forward", "cuda", "forward", "_cuda_kernel_forward"),
        Unit("cuda-backward", "cuda", "backward", "_cuda_kernel_backward"),
        Unit("cpu", "cpu", "forward", "_cpu_kernel_forward"),
    )
}


def unit(name: str) -> Unit:
    try:
        return UNITS[name]
    except KeyError:
        raise ConfigError(f"unknown unit {name!r}; valid: {', '.join(UNITS)}") from None


@dataclass(frozen=True)
class ConfigSpec:
    """Everything the builder, the validator, the card, the evaluator and the trainer ask of a config."""

    name: str
    source: str  # which row source writes it (builder.sources): generated or shipped
    description: str  # one line: the datasets BuilderConfig's description and the card's
    units: tuple[str, ...]  # the emitted units its rows hold, in row order
    splits: tuple[str, ...] = SPLITS  # the splits it has
    use: str = "both"  # training, evaluation or both (a generated config has every split)
    # what a row holds, exactly one of: an ``ir`` (what a model writes: train, predict and evaluate take the
    # config), whole C++ and CUDA programs around the units (standalone), or a repair (a broken kernel, Warp's
    # diagnostic and the working kernel: the repair source's rows)
    ir: bool = True
    programs: bool = False
    gpu: bool = False  # rows are also run on a CUDA GPU: the GPU columns, a GPU to build on
    written: bool = False  # rows are made from a built real folder's train kernels (--real-data): no drawn program
    default: bool = False  # in the default build (``warp-cuda-ir build`` without --configs)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ConfigError(f"config {self.name!r}: unknown source {self.source!r}; valid: {', '.join(SOURCES)}")
        if self.use not in USES:
            raise ConfigError(f"config {self.name!r}: unknown use {self.use!r}; valid: {', '.join(USES)}")
        if not self.units or any(u not in UNITS for u in self.units):
            raise ConfigError(f"config {self.name!r}: units must be some of {', '.join(UNITS)}, got {self.units}")
        if not self.splits or any(s not in SPLITS for s in self.splits):
            raise ConfigError(f"config {self.name!r}: splits must be some of {', '.join(SPLITS)}, got {self.splits}")
        if self.written and (self.splits != ("train",) or self.generated):
            raise ConfigError(f"config {self.name!r}: rows made from real's train kernels are in train alone")
        if sum((self.ir, self.programs, self.repair)) != 1:
            raise ConfigError(f"config {self.name!r}: rows hold exactly one of an ir, whole programs or a repair")

    @property
    def generated(self) -> bool:
        """Rows are programs drawn from (seed, split, index) with what Warp emits for them (its units, or whole
        programs around them: ``standalone``), which regenerate exactly."""
        return self.source in ("generated", "standalone")

    @property
    def shipped(self) -> bool:
        """Rows are kernels a package ships (no seed: what the pinned packages hold)."""
        return self.source == "shipped"

    @property
    def derived(self) -> bool:
        """Rows are seeded variants of ``real``'s train kernels, which regenerate from those rows and the seed."""
        return self.source == "derived"

    @property
    def repair(self) -> bool:
        """Rows are drawn programs broken by a seeded edit, with Warp's diagnostic for the broken kernel."""
        return self.source == "repair"

    @property
    def drawn(self) -> bool:
        """Rows are numbered 0..N-1 in each split, N the build's ``--num-*`` size, each a program drawn from
        (seed, split, index): generated, and repair of drawn programs."""
        return self.source in ("generated", "standalone", "repair") and not self.written

    @property
    def seeded(self) -> bool:
        """Rows carry a seed and an index and regenerate from them (generated and repair; derived, with the real
        row they vary), with their inputs; shipped rows carry no seed and their inputs are built from argument
        types."""
        return self.source in ("generated", "standalone", "derived", "repair")

    @property
    def single_unit(self) -> Unit | None:
        """The one unit every row holds (a model trained on the config writes it), or None where rows differ."""
        return UNITS[self.units[0]] if len(self.units) == 1 else None

    @property
    def ptx(self) -> bool:
        """Rows of a CUDA unit carry the PTX of their entry point."""
        return self.ir and any(UNITS[u].target == "cuda" for u in self.units)

    @property
    def units_per_program(self) -> int:
        """Rows a drawn program gives at most (gpu-verified: both CUDA passes)."""
        return len(self.units) if self.ir and self.generated else 1

    def target_pass(self) -> str:
        """What its rows hold, as the card's configs table says it: ``cuda + cpu / forward + backward``."""
        targets = " + ".join(dict.fromkeys(UNITS[u].target for u in self.units))
        passes = " + ".join(dict.fromkeys(UNITS[u].pass_ for u in self.units))
        return f"{targets} programs / {passes}" if self.programs else f"{targets} / {passes}"


def _unit_config(name: str, description: str) -> ConfigSpec:
    return ConfigSpec(name, "generated", description, units=(name,), default=True)


REGISTRY: dict[str, ConfigSpec] = {
    s.name: s
    for s in (
        _unit_config("cuda-forward", "Warp kernel -> CUDA C++ forward kernel emitted by Warp."),
        _unit_config("cuda-backward", "Warp kernel -> CUDA C++ backward (adjoint) kernel emitted by Warp."),
        _unit_config("cpu", "Warp kernel -> CPU C++ forward kernel emitted by Warp."),
        ConfigSpec(
            "gpu-verified",
            "generated",
            "cuda-forward and cuda-backward rows, also run on a CUDA GPU and compared with the CPU.",
            units=("cuda-forward", "cuda-backward"),
            gpu=True,
        ),
        ConfigSpec(
            "real",
            "shipped",
            "Written Warp code: the kernels shipped with warp-lang, newton, mujoco-warp, nvalchemi-toolkit-ops,"
            " warp-nn and six more packages built on Warp, every target and pass, in train / validation / test:"
            " nvalchemi-toolkit-ops and warp-nn held out whole in test, the others split by module, near-copies"
            " kept in one split.",
            units=tuple(UNITS),
        ),
        ConfigSpec(
            "derived",
            "derived",
            "Kernels derived from real's train kernels by seeded transformations (names, statement order,"
            " precision, constants, builtins, helpers), every target and pass, labelled by Warp, compiled, and run on"
            " the CPU where inputs can be built from the argument types; train only.",
            units=tuple(UNITS),
            splits=("train",),
            use="training",
            written=True,
        ),
        ConfigSpec(
            "standalone",
            "standalone",
            "Warp kernel -> a complete C++ program and a complete CUDA program around Warp's emitted units, with a"
            " Makefile and the kernel's inputs; built with g++ (and run: outputs equal Warp's) and with nvcc.",
            units=("cpu", "cuda-forward"),
            ir=False,
            programs=True,
        ),
        ConfigSpec(
            "repair",
            "repair",
            "Warp kernel broken by one seeded edit -> Warp's own diagnostic (error class, message, line) and the"
            " working kernel with the diff; the working kernel compiled and run as the cpu config's row of the same"
            " program.",
            units=("cpu",),
            ir=False,
        ),
        ConfigSpec(
            "repair-real",
            "repair",
            "real's train kernels broken by one seeded edit -> Warp's own diagnostic and the written kernel with the"
            " diff, with the real row's licence, attribution and compile evidence; train only.",
            units=("cpu",),
            splits=("train",),
            use="training",
            ir=False,
            written=True,
        ),
    )
}
CONFIGS = tuple(REGISTRY)
DEFAULT_CONFIGS = tuple(n for n, s in REGISTRY.items() if s.default)


# configs that are no more, and where their rows went (said instead of "unknown config")
RETIRED = {"real-train": "its rows are real's train split (--configs real; load_dataset(..., 'real', split='train'))"}


def spec(name: str) -> ConfigSpec:
    """The spec of config ``name``; ``ConfigError`` listing the valid names for any other."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        if isinstance(name, str) and name in RETIRED:
            raise ConfigError(f"config {name!r} is retired: {RETIRED[name]}") from None
        raise ConfigError(f"unknown config {name!r}; valid: {', '.join(CONFIGS)}") from None


def ir_spec(name: str) -> ConfigSpec:
    """The spec of ``name`` where its rows hold an ``ir`` a model can be trained on, predict and be scored on
    (every config but standalone, whose rows hold whole programs); ``ConfigError`` for any other."""
    found = spec(name) if name in REGISTRY else None
    if found is None or not found.ir:
        what = "cannot use" if found else "unknown"
        raise ConfigError(f"{what} config {name!r}; valid: {', '.join(names(ir=True))}")
    return found


def names(**where) -> tuple[str, ...]:
    """The configs whose spec has every attribute given: ``names(source="shipped")``, ``names(ir=True)``."""
    return tuple(n for n, s in REGISTRY.items() if all(getattr(s, k) == v for k, v in where.items()))
