"""Identifier vocabularies, so generated kernels read like kernels people write."""

from __future__ import annotations

import random

from builder.grammar.odds import Odds
from builder.grammar.wtypes import WType

SCALAR_STEMS = (
    "x",
    "y",
    "s",
    "t",
    "u",
    "w",
    "val",
    "amp",
    "phase",
    "energy",
    "weight",
    "dist",
    "speed",
    "temp",
    "rate",
    "gain",
    "alpha",
    "beta",
    "theta",
    "r",
    "h",
    "rho",
    "pressure",
    "force",
    "offset",
    "scale",
    "err",
    "d",
    "c",
    "f",
    "lam",
    "sigma",
    "tau",
    "eps",
    "k_s",
    "damp",
)
INT_STEMS = ("cnt", "idx", "code", "bits", "bucket", "key", "cell", "lane", "slot", "mask", "tag", "hv")
VEC_STEMS = (
    "p",
    "v",
    "n",
    "dir",
    "vel",
    "pos",
    "axis",
    "fv",
    "delta",
    "dp",
    "normal",
    "grad",
    "acc_v",
    "uv",
    "col",
    "disp",
    "tangent",
    "offset_v",
)
MAT_STEMS = ("M", "A", "R", "J", "K", "S", "rot_m", "jac", "cov", "stress", "basis", "H")
QUAT_STEMS = ("q", "orient", "rot_q", "spin", "q_rel")
XFORM_STEMS = ("xf", "pose", "X", "frame", "world")
ACC_STEMS = ("total", "acc", "sum_v", "accum", "running", "partial", "agg")

INPUT_NAMES = (
    "pos",
    "vel",
    "mass",
    "x",
    "y",
    "a",
    "b",
    "src",
    "field",
    "points",
    "weights",
    "values",
    "data",
    "temps",
    "rates",
    "forces",
    "normals",
    "coeffs",
    "density",
    "phi",
    "u",
    "signal",
    "heights",
    "loads",
    "radii",
    "colors",
    "samples",
    "offsets",
    "frames",
    "poses",
    "rots",
)
OUTPUT_NAMES = (
    "out",
    "result",
    "dst",
    "y_out",
    "values_out",
    "res",
    "output",
    "field_out",
    "flux",
    "energy_out",
    "vel_out",
    "pos_out",
    "slope_out",
    "color_out",
)
ACC_NAMES = ("total", "hist", "counts", "sums", "accum", "bins", "heat_sum", "extrema", "tally", "partials")
PARAM_NAMES = ("dt", "scale", "gain", "alpha", "k", "damping", "stiffness", "freq", "bias", "eps", "h")

VERBS = (
    "integrate",
    "advect",
    "blend",
    "accumulate",
    "scatter",
    "gather",
    "smooth",
    "project",
    "rotate",
    "transform",
    "update",
    "compute",
    "apply",
    "reduce",
    "sample",
    "filter",
    "relax",
    "solve",
    "shade",
    "warp",
    "remap",
    "normalize",
    "clip",
    "diffuse",
    "evaluate",
    "step",
    "mix",
    "encode",
    "pack",
    "correct",
    "splat",
    "deform",
    "bin",
    "score",
    "weight",
    "estimate",
    "propagate",
    "fold",
)
NOUNS = (
    "particles",
    "forces",
    "field",
    "grid",
    "points",
    "bodies",
    "springs",
    "velocities",
    "samples",
    "density",
    "heat",
    "signal",
    "weights",
    "normals",
    "frames",
    "poses",
    "voxels",
    "cells",
    "rays",
    "colors",
    "energy",
    "pressure",
    "loads",
    "histogram",
    "stencil",
    "noise",
    "contacts",
    "joints",
    "vertices",
    "edges",
    "pixels",
    "waves",
    "sdf",
    "flux",
    "stress",
    "momentum",
    "torque",
    "lattice",
)
FUNC_NAMES = (
    "smooth_kernel",
    "soft_clip",
    "wrap_angle",
    "falloff",
    "blend",
    "penalty",
    "spring_force",
    "mix_hash",
    "poly",
    "attenuate",
    "damp",
    "response",
    "shape_fn",
    "bump",
    "ramp",
    "warp_coord",
    "saturate",
    "kernel_weight",
    "reflect",
    "contact_force",
    "bell",
    "sigmoid_like",
    "mirror",
    "squash",
    "lift",
    "remap_value",
    "edge_weight",
)
STRUCT_NAMES = (
    "Particle",
    "Body",
    "Material",
    "SimParams",
    "Cell",
    "Ray",
    "Spring",
    "Sample",
    "Contact",
    "Joint",
    "Light",
    "Emitter",
    "Probe",
    "Span",
)
FIELD_NAMES = (
    "mass",
    "radius",
    "stiffness",
    "damping",
    "pos",
    "vel",
    "color",
    "weight",
    "energy",
    "temperature",
    "salinity",
    "kind",
    "id",
    "offset",
    "axis",
    "strength",
    "friction",
    "scale",
)


def stem_for(rng: random.Random, t: WType, accumulator: bool = False) -> str:
    if accumulator:
        return rng.choice(ACC_STEMS)
    table = {"vec": VEC_STEMS, "mat": MAT_STEMS, "quat": QUAT_STEMS, "transform": XFORM_STEMS}
    if t.kind in table:
        return rng.choice(table[t.kind])
    return rng.choice(INT_STEMS if t.is_int else SCALAR_STEMS)


def kernel_name(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"


# Array, parameter and output names by value kind: "f" float, "v" vector, "m" matrix, "q" quaternion,
# "x" transform, "i" integer.
ARRAYS = {
    "f": (
        "mass",
        "density",
        "pressure",
        "temperature",
        "weights",
        "values",
        "heights",
        "radii",
        "phi",
        "u",
        "signal",
        "samples",
        "loads",
        "rates",
        "energy",
        "sdf",
        "inv_mass",
        "a",
        "b",
        "x",
        "src",
        "coeffs",
        "field",
    ),
    "v": (
        "positions",
        "velocities",
        "forces",
        "normals",
        "points",
        "directions",
        "displacements",
        "particle_x",
        "particle_v",
        "colors",
        "targets",
        "vertices",
        "x",
        "v",
        "f",
        "dirs",
    ),
    "m": ("stress", "rotations", "jacobians", "basis", "inertia", "deformation", "F", "cov"),
    "q": ("rotations", "orientations", "quats", "body_rot", "q"),
    "x": ("poses", "body_q", "transforms", "frames", "xforms", "X_wb"),
    "i": ("tags", "counts", "ids", "flags", "cells", "keys", "codes", "indices"),
}
OUTPUTS = {
    "f": ("result", "out", "density_out", "energy_out", "values_out", "y", "dst", "phi_new", "u_new", "loss", "cost"),
    "v": ("forces_out", "accel_out", "new_positions", "vel_out", "normals_out", "dest", "x_new", "v_new", "out"),
    "m": ("stress_out", "out", "result", "J_out", "rot_out"),
    "q": ("rot_out", "q_out", "orient_out", "out"),
    "x": ("pose_out", "body_q_out", "X_out", "out"),
    "i": ("labels_out", "counts", "bins", "out", "codes_out", "result"),
}
PARAMS = {
    "f": ("dt", "scale", "k", "damping", "stiffness", "alpha", "beta", "gain", "eps", "c", "strength", "kd", "ke"),
    "pos": ("mass", "h", "radius", "rest_length", "dx", "viscosity", "smoothing", "sigma", "width"),
    "v": ("gravity", "wind", "origin", "axis", "center", "offset", "up", "force"),
    "i": ("n", "count", "num_points", "dim", "num_cells"),
}
KIND_OF = {"vec": "v", "mat": "m", "quat": "q", "transform": "x"}


def kind(t: WType) -> str:
    if t.kind == "scalar":
        return "i" if t.is_int else "f"
    return KIND_OF.get(t.kind, "f")


# Generator 4.4.0: what a kernel's data is about. Simulation code names its arrays after the thing they describe
# (a body's pose, a contact's normal, a particle's radius): most parameter names in physics projects are compound
# and come from a far larger vocabulary than the stems above (in newton, 78% of parameter names hold an
# underscore, 12 characters on average, 5,552 distinct among 19,607; the stems above give 359). A kernel that has
# a domain names most of its arguments after it, so a name is known only from the kernel's own signature, as in
# code people write. The words are generic simulation, graphics and numerics vocabulary, not taken from any
# project the dataset scores against.
DOMAINS = (
    "body",
    "shape",
    "joint",
    "particle",
    "contact",
    "cell",
    "grid",
    "mesh",
    "tri",
    "edge",
    "vertex",
    "face",
    "node",
    "elem",
    "spring",
    "cloth",
    "fluid",
    "rigid",
    "soft",
    "world",
    "env",
    "link",
    "bone",
    "muscle",
    "tendon",
    "wheel",
    "cable",
    "rod",
    "shell",
    "tet",
    "voxel",
    "ray",
    "light",
    "camera",
    "pixel",
    "photon",
    "surface",
    "volume",
    "wave",
    "heat",
    "ion",
    "crystal",
    "tether",
    "pair",
    "neighbor",
    "cluster",
    "group",
    "island",
    "chain",
    "limb",
    "foot",
    "tool",
    "goal",
    "sensor",
    "actuator",
    "motor",
    "gear",
    "anchor",
    "pivot",
    "hinge",
    "slider",
    "ball",
    "capsule",
    "box",
    "sphere",
    "plane",
    "cone",
    "hull",
    "terrain",
    "ground",
    "wall",
    "obstacle",
    "agent",
    "robot",
    "arm",
    "leg",
    "torso",
    "tip",
    "root",
    "parent",
    "child",
    "dof",
    "coord",
    "constraint",
    "collider",
    "emitter",
    "probe",
    "segment",
    "curve",
    "patch",
    "quad",
    "hex",
    "lattice",
    "tile",
    "block",
    "lane",
    "batch",
    "sample",
    "frame",
    "step",
    "substep",
    "iter",
    "level",
    "layer",
    "channel",
    "feature",
    "token",
    "head",
    "query",
    "key",
    "bin",
    "bucket",
    "slot",
    "entry",
    "item",
    "record",
    "event",
    "packet",
    "cam",
    "lens",
    "sky",
    "sun",
    "water",
    "sand",
    "snow",
    "smoke",
    "fire",
    "dust",
    "grain",
    "fiber",
    "strand",
    "hair",
    "leaf",
    "branch",
    "tree",
    "rope",
    "chain_link",
    "plate",
    "beam",
    "truss",
    "strut",
    "pipe",
    "valve",
    "pump",
    "tank",
    "rotor",
    "blade",
    "wing",
    "fin",
    "hull_pt",
    "keel",
    "sail",
    "mast",
    "track",
    "rail",
    "trolley",
    "pole",
    "pendulum",
    "drone",
    "vehicle",
    "tire",
    "brake",
    "axle",
    "chassis",
)
MODIFIERS = (
    "prev",
    "next",
    "rest",
    "init",
    "local",
    "world",
    "ref",
    "target",
    "start",
    "new",
    "old",
    "sum",
    "max",
    "min",
    "scaled",
    "inv",
    "rel",
    "tmp",
    "src",
    "dst",
    "buf",
    "cur",
    "last",
    "avg",
    "filtered",
    "raw",
)
# the frames a local's value is expressed in, as rigid-body code suffixes them (a point in world frame, a
# transform from body to world)
FRAMES = ("w", "b", "s", "c", "p", "l", "a", "wb", "ws", "bs", "sc", "ij", "ab", "pc", "world", "local", "rel")


class Namer:
    """The names a kernel gives beyond a stem: a domain its arguments are named after, a modifier, a frame.

    It draws from a stream of its own (``KernelCtx`` derives it from the program's stream by a stable hash), so
    a name never shifts a structural draw: a generator that names differently draws the same programs, and the
    normalized form, which numbers identifiers, is the same.
    """

    def __init__(self, rng: random.Random, odds: Odds):
        self.rng, self.odds = rng, odds
        self.domain = rng.choice(DOMAINS) if rng.random() < odds.qualified_names else ""

    def _word(self, stem: str) -> str:
        word = self.domain if self.rng.random() < self.odds.domain_repeat else self.rng.choice(DOMAINS)
        return "" if stem == word or stem.startswith(word + "_") else word + "_"

    def argument(self, stem: str) -> str:
        """An array argument drawn from a pool of stems."""
        if self.domain and self.rng.random() < self.odds.qualified_argument:
            stem = self._word(stem) + stem
        if self.rng.random() < self.odds.name_modifier:
            stem = f"{stem}_{self.rng.choice(MODIFIERS)}"
        return stem

    def parameter(self, stem: str) -> str:
        """A uniform: fewer are about one kind of thing (a time step, a gravity)."""
        if self.domain and self.rng.random() < self.odds.qualified_param:
            return self._word(stem) + stem
        return stem

    def local(self, stem: str) -> str:
        """A computed local: named after the domain, or suffixed with the frame it is expressed in."""
        if not self.domain or self.rng.random() >= self.odds.qualified_local:
            return stem
        if self.rng.random() < self.odds.local_frame:
            return f"{stem}_{self.rng.choice(FRAMES)}"
        return self._word(stem) + stem

    def kernel(self, name: str) -> str:
        """``verb_noun`` -> ``verb_domain_noun``."""
        if not self.domain or self.rng.random() >= self.odds.qualified_kernel:
            return name
        verb, _, noun = name.partition("_")
        return f"{verb}_{self.domain}_{noun}" if noun and self.domain != noun else name
