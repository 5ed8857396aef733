"""Identifier vocabularies, so generated kernels read like kernels people write."""

from __future__ import annotations

import random

from builder.grammar.wtypes import WType

SCALAR_STEMS = ("x", "y", "s", "t", "u", "w", "val", "mag", "phase", "energy", "weight", "dist", "speed",
                "temp", "rate", "gain", "alpha", "beta", "theta", "r", "h", "rho", "pressure", "force",
                "offset", "scale", "err", "d", "c", "f", "lam", "sigma", "tau", "eps", "k_s", "damp")
INT_STEMS = ("cnt", "idx", "code", "bits", "bucket", "key", "cell", "lane", "slot", "mask", "tag", "hv")
VEC_STEMS = ("p", "v", "n", "dir", "vel", "pos", "axis", "fv", "delta", "dp", "normal", "grad", "acc_v",
             "uv", "col", "disp", "tangent", "offset_v")
MAT_STEMS = ("M", "A", "R", "J", "K", "S", "rot_m", "jac", "cov", "stress", "basis", "H")
QUAT_STEMS = ("q", "orient", "rot_q", "spin", "q_rel")
XFORM_STEMS = ("xf", "pose", "X", "frame", "world")
ACC_STEMS = ("total", "acc", "sum_v", "accum", "running", "partial", "agg")

INPUT_NAMES = ("pos", "vel", "mass", "x", "y", "a", "b", "src", "field", "points", "weights", "values",
               "data", "temps", "rates", "forces", "normals", "coeffs", "density", "phi", "u", "signal",
               "heights", "charges", "radii", "colors", "samples", "offsets", "frames", "poses", "rots")
OUTPUT_NAMES = ("out", "result", "dst", "y_out", "values_out", "res", "output", "field_out", "flux",
                "energy_out", "vel_out", "pos_out", "grad_out", "color_out")
ACC_NAMES = ("total", "hist", "counts", "sums", "accum", "bins", "energy_sum", "extrema", "tally", "partials")
PARAM_NAMES = ("dt", "scale", "gain", "alpha", "k", "damping", "stiffness", "freq", "bias", "eps", "h")

VERBS = ("integrate", "advect", "blend", "accumulate", "scatter", "gather", "smooth", "project", "rotate",
         "transform", "update", "compute", "apply", "reduce", "sample", "filter", "relax", "solve", "shade",
         "warp", "remap", "normalize", "clip", "diffuse", "evaluate", "step", "mix", "encode", "pack",
         "correct", "splat", "deform", "bin", "score", "weight", "estimate", "propagate", "fold")
NOUNS = ("particles", "forces", "field", "grid", "points", "bodies", "springs", "velocities", "samples",
         "density", "heat", "signal", "weights", "normals", "frames", "poses", "voxels", "cells", "rays",
         "colors", "energy", "pressure", "charges", "histogram", "stencil", "noise", "contacts", "joints",
         "vertices", "edges", "pixels", "waves", "sdf", "flux", "stress", "momentum", "torque", "lattice")
FUNC_NAMES = ("smooth_kernel", "soft_clip", "wrap_angle", "falloff", "blend", "penalty", "spring_force",
              "mix_hash", "poly", "attenuate", "damp", "response", "shape_fn", "bump", "ramp", "warp_coord",
              "saturate", "kernel_weight", "reflect", "contact_force", "gauss", "sigmoid_like", "mirror",
              "squash", "lift", "remap_value", "edge_weight")
STRUCT_NAMES = ("Particle", "Body", "Material", "SimParams", "Cell", "Ray", "Spring", "Sample", "Contact",
                "Joint", "Light", "Emitter", "Probe", "Segment")
FIELD_NAMES = ("mass", "radius", "stiffness", "damping", "pos", "vel", "color", "weight", "energy",
               "temperature", "charge", "kind", "id", "offset", "axis", "strength", "friction", "scale")


def stem_for(rng: random.Random, t: WType, accumulator: bool = False) -> str:
    if accumulator:
        return rng.choice(ACC_STEMS)
    table = {"vec": VEC_STEMS, "mat": MAT_STEMS, "quat": QUAT_STEMS, "transform": XFORM_STEMS}
    if t.kind in table:
        return rng.choice(table[t.kind])
    return rng.choice(INT_STEMS if t.is_int else SCALAR_STEMS)


def kernel_name(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
