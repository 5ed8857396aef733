"""Odds: the chance of each optional choice the grammar makes, by name.

A policy (``policy.Policy``) holds one ``Odds``; grammar code reads
``g.p.odds.<name>`` where it draws ``rng.random() < ...``, so every
probability the generator uses lives here or in ``Policy`` and categories
can differ in it without touching grammar code. The defaults are the values
the grammar was tuned with (generator 4.0.0): changing one changes rows, so
it goes with a generator version bump.

Most fields choose between two spellings of the same computation (``float``
or ``wp.float32``, ``wp.dot(d, d)`` or ``wp.length_sq(d)``), because real Warp
code uses both; the rest switch an optional step on (a damping term, a bias).
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Odds:
    # leaves and literals (expr.py)
    tid_leaf: float = 0.5  # an int leaf may be the thread index even where the value need not vary
    param_positive: float = 0.4  # a new float parameter takes positive values
    nice_literal: float = 0.7  # a float literal is a round number rather than a drawn one
    # scalar expressions and conditions (expr_scalar.py)
    vary_left: float = 0.6  # None
    sum_leaf: float = 0.5  # a sum's right operand is a leaf
    sum_literal: float = 0.5  # that leaf is a literal
    threshold_inside: float = 0.5  # a comparison's threshold drawn inside the value's range
    lerp_by_param: float = 0.5  # wp.lerp's weight is a parameter in [0, 1]
    int_literal_operand: float = 0.5  # an int operation's right operand is a literal
    int_modulo: float = 0.5  # an int divided by an odd prime keeps the remainder rather than the quotient
    int_ctor_plain: float = 0.6  # a float rounded to int spelled int() rather than wp.int32()
    cond_int: float = 0.25  # a condition compares ints
    cond_pivot: float = 0.6  # a condition compares with a literal pivot
    cond_isfinite: float = 0.06  # a condition guarded with wp.isfinite
    cond_compound: float = 0.15  # a condition joined with another by and / or
    # vectors and matrices (expr_linalg.py)
    vector_divided: float = 0.2  # a vector scaled by dividing by a scalar
    vector_first: float = 0.6  # a vector-scalar product written `v * s` rather than `s * v`
    vector_part_expr: float = 0.7  # a vector constructor's component is an expression rather than a literal
    matvec_wp_mul: float = 0.2  # a matrix-vector product spelled wp.mul(m, v) rather than m @ v
    matrix_part_expr: float = 0.6  # a matrix constructor's entry is an expression rather than a literal
    float_from_matrix: float = 0.3  # a float read off a matrix rather than a vector
    # helper calls (helpers.py)
    call_existing: float = 0.5  # a call goes to an existing helper that fits rather than a new one
    call_bound: float = 0.7  # a helper's result in a kernel is bound to a local, x = helper(...) (4.2.0; was 0)
    # loops and branches (flow.py)
    loop_static_range: float = 0.6  # a constant trip count written range(wp.static(n))
    loop_guarded: float = 0.4  # a weighted loop sum adds only the terms whose weight passes a test (4.2.0)
    zero_plain: float = 0.8  # a dynamic float accumulator starts as float(0.0) rather than wp.float32(0.0)
    loop_trips_param: float = 0.3  # a dynamic loop's trip count is an argument (after Policy.static_loops)
    branch_compound_assign: float = 0.5  # a branch updates a local with += / -= / *=
    # annotations (kernel.py)
    float_plain: float = 0.75  # float32 annotated `float` rather than `wp.float32` (0.85 before generator 4.5.0)
    int_plain: float = 0.5  # int32 annotated `int` rather than `wp.int32` (0.85 before generator 4.0.0)
    vec_suffixed: float = 0.1  # a float32 vector annotated with its suffixed alias (wp.vec3f)
    array_ndim_keyword: float = 0.4  # a multi-dimensional array annotated wp.array(dtype=T, ndim=n)
    # how the kernel is written out (style.py; generator 4.0.0): no statement changes
    signature_one_line: float = 0.55  # a signature that fits in layout.ONE_LINE_WIDTH written on one line
    # generator 4.3.0: one house style drawn whole (a project writes all its kernels one way): parameters a line
    # each under group comments (uniforms as "# Model:", arrays read, arrays written), types spelled plainly
    signature_groups: float = 0.16  # (0.15 at 4.3.0)
    docstring: float = 0.3  # the kernel opens with a one-line docstring (0.35 before 4.4.0)
    docstring_sources: float = 0.7  # that docstring also names what the kernel reads
    block_comments: float = 0.3  # its blocks (loads, body) may carry a comment line (0.45 before 4.4.0)
    block_comment_each: float = 0.6  # ... and each of them does
    inner_comments: float = 0.6  # ... and a block inside the body (a branch, a loop) opens with one (4.4.0)
    blank_lines: float = 0.3  # a blank line between its blocks (always before a comment that follows a block)
    # generator 4.2.0: blank lines between the body's statements, and long calls written an argument per line
    body_blank_lines: float = 0.3  # with blank_lines, a blank line before each top-level statement of the body
    wrap_calls: float = 0.7  # a block's statements ending in a call past layout.WRAP_WIDTH wrapped as ruff would
    param_in_array: float = 0.12  # a uniform float or int passed as a one-element array and read at [0]
    # generator 4.5.0: the program is the last kernel of a module that first holds Policy.siblings sibling kernels
    # (siblings.py), so its statements sit at the lines written kernels sit at
    module_siblings: float = 0.6
    # names (names.Namer, generator 4.4.0): drawn from their own stream, so they change no statement
    qualified_names: float = 0.5  # a kernel names its data after a domain (body_q, contact_normal)
    qualified_argument: float = 0.7  # ... each array argument drawn from a pool then does
    qualified_param: float = 0.3  # ... each uniform
    qualified_local: float = 0.25  # ... each computed local, by the domain or by the frame it is expressed in
    local_frame: float = 0.5  # that local suffixed with its frame (p_w, X_wb) rather than prefixed with a domain
    qualified_kernel: float = 0.5  # ... the kernel's own name (integrate_body_forces)
    domain_repeat: float = 0.75  # a qualified name takes the kernel's domain rather than another word
    name_modifier: float = 0.08  # an array argument's name takes a modifier (positions_prev, mass_inv)
    # kernel bodies: guards, writes, particles, stencils (idioms.py)
    short_kernel: float = 0.3  # an elementwise or reduction kernel stores one value from shallow expressions (4.5.0)
    store_components: float = 0.4  # a vector output of a 1-D launch stored per component, out[i, 0] = v[0] (4.2.0)
    mask_compared: float = 0.7  # a mask tested with `== 0` rather than `not`
    combine_scaled: float = 0.5  # an idiom's result combined by scaling rather than by an offset
    in_place_spelled_out: float = 0.5  # an in-place update written `a[i] = x + e` rather than `a[i] += e`
    particles_gravity: float = 0.6  # an integrator adds a uniform acceleration
    particles_named_accel: float = 0.5  # the acceleration bound to a local
    particles_damping: float = 0.4  # the velocity damped
    damping_spelled_out: float = 0.5  # damping written `v = v * d` rather than `v *= d`
    particles_ground: float = 0.4  # a ground plane the particle bounces off
    particles_in_place: float = 0.5  # position and velocity updated in place rather than written to new arrays
    stencil_early_exit: float = 0.5  # a stencil's boundary handled by an early return rather than an if block
    stencil_source: float = 0.4  # a stencil update adds a source term
    stencil_else_copy: float = 0.6  # an if-block stencil copies the centre on the boundary
    # kernel bodies through index arrays (indexed.py, generator 4.3.0)
    indexed_counted: float = 0.25  # a link, gather or copy kernel runs only up to a device counter (`count[0]`)
    operand_gathered: float = 0.35  # what a gathered value meets: another array read through the same link
    operand_read: float = 0.35  # ... or the thread's own element of an input (else a computed value)
    gathered_scales: float = 0.5  # a gathered float scales a value rather than divides it
    indexed_combine: float = 0.15  # a gathered result combined with another value
    link_block: float = 0.5  # a link's work inside `if body >= 0:` rather than after `if body == -1: return`
    link_test_minus_one: float = 0.5  # a missing link tested `== -1` rather than `< 0`
    link_exit_store: float = 0.5  # the threads a missing link turns off store a zero before they return
    gathered_bound: float = 0.6  # a gathered value bound to a local first
    link_block_nonnegative: float = 0.5  # the block's test `>= 0` rather than `!= -1`
    flag_bits: float = 0.4  # a flag tested as a bit of a flags word, `(flags[i] & 1) == 0`
    gate_early_exit: float = 0.5  # a flag-gated store by an early exit rather than if / else
    select_on_flag: float = 0.5  # a literal-initialized value overwritten under a flag rather than a comparison
    select_combine: float = 0.4  # that value combined with another before it is stored
    pair_flattened: float = 0.5  # a pair's ends at 2 p and 2 p + 1 of a flat array rather than a 2-D one
    pair_measure: float = 0.5  # a pair stores its squared length rather than applying a force to both ends
    # kernel bodies: reductions, sparse rows, pairs (idioms_loops.py)
    total_subtracted: float = 0.15  # a total accumulated with wp.atomic_sub rather than wp.atomic_add
    total_in_double: float = 0.3  # a vec3 total summed in double precision (wp.vec3d)
    total_plus_equals: float = 0.2  # a float total added with `acc[0] += v` rather than wp.atomic_add
    block_mapped_out: float = 0.3  # a block reduction also stores wp.tile_map of its tile
    extrema_long_name: float = 0.5  # an extremum's array named `max_value` rather than `vmax`
    histogram_counts: float = 0.5  # a histogram counts (int) rather than sums weights (float)
    sparse_scatter: float = 0.3  # a sparse kernel runs one thread per stored entry rather than per row
    csr_start_word: float = 0.5  # a CSR row's first entry named `start` rather than `beg`
    spmv_mean: float = 0.3  # a row sum divided by the row's entry count
    sparse_offset: float = 0.6  # a row sum offset by another value
    lower_bound_whole: float = 0.5  # wp.lower_bound over the whole array rather than an explicit range
    scatter_weighted: float = 0.4  # a scattered entry scaled by another per-entry value
    pairwise_density: float = 0.5  # a pairwise kernel sums a density rather than a force
    pairwise_dot: float = 0.5  # a squared distance spelled wp.dot(d, d) rather than wp.length_sq(d)
    pairwise_skip_self: float = 0.6  # a pairwise loop skips the thread's own particle (4.2.0)
    skip_self_continue: float = 0.5  # ... with `if j == i: continue` rather than `j != i and` in its cutoff test
    pairwise_scaled: float = 0.5  # a pairwise sum scaled by a uniform value
    sparse_combine: float = 0.5  # a sparse row's result combined with another value (idioms.combine)
    pairwise_combine: float = 0.5  # a pairwise sum combined with another value
    # meshes, volumes, hash grids, spatial hashes (geometry.py)
    ray_down: float = 0.5  # a mesh ray cast straight down rather than toward the origin
    ray_plain_t: float = 0.5  # a ray's hit distance kept rather than weighted by the face's angle
    hash_grid_mean: float = 0.5  # a hash-grid sum divided by the neighbours found
    volume_voxel_value: float = 0.25  # a volume read at the voxel without interpolation
    volume_voxel_step: float = 0.4  # one voxel step in world units along the point's direction
    volume_voxel_centre: float = 0.3  # the voxel centre's world position
    cell_origin: float = 0.5  # a grid cell computed relative to a grid origin
    cell_floor: float = 0.5  # cell coordinates floored rather than truncated
    hash_buckets_const: float = 0.5  # the bucket count is a module constant
    hash_64bit: float = 0.5  # a spatial hash computed in 64 bits
    claim_cas: float = 0.5  # a bucket claimed with wp.atomic_cas rather than wp.atomic_exch
    hash_weighted_sum: float = 0.6  # a spatial-hash kernel also sums a value per bucket
    geometry_combine: float = 0.8  # a geometry query's result combined with another value
    # tile rows and blocks (tiles.py)
    map_builtin: float = 0.35  # wp.tile_map applies a builtin rather than a generated helper
    reduce_sum: float = 0.4  # a whole-tile reduction is wp.tile_sum
    reduce_op: float = 0.35  # ... or wp.tile_reduce with a builtin operator
    reduce_extreme: float = 0.1  # ... or wp.tile_max / wp.tile_min (the rest: a squared norm, the sum of the squares)
    rows_ramp: float = 0.45  # a row tile combined with a ramp or an offset built in place
    ramp_param_level: float = 0.4  # that offset is a uniform level given by the caller
    rows_pair: float = 0.5  # a row tile combined with a second loaded tile
    rows_mapped: float = 0.7  # a row tile mapped through a function
    row_sum_atomic: float = 0.5  # a reduced row added atomically to one total rather than stored
    blocks_start_zeros: float = 0.7  # a 2-D block accumulator starts from wp.tile_zeros rather than wp.tile_ones
    centered_extreme: float = 0.5  # a tile centred on its max or min rather than its mean
    blocks_add_tile: float = 0.35  # a 2-D block adds another loaded tile (before the optional bias step)
    # per-lane tile loops (tiles_lanes.py)
    lanes_histogram: float = 0.4  # a per-lane tile kernel builds a histogram rather than a row total
    lanes_weighted: float = 0.5  # per-element lane work is a weighted value rather than a helper call
    tile_sum_spelled: float = 0.5  # a tile total spelled wp.tile_sum rather than wp.tile_reduce(wp.add, ...)
    lanes_store_total: float = 0.35  # a row total stored with wp.tile_store
    histogram_clamp: float = 0.5  # a bin index clamped with wp.clamp rather than wp.min
    histogram_unit_weight: float = 0.5  # each sample adds 1.0 to its bin
    histogram_store_row: float = 0.5  # a block's histogram stored into its row
    # tile GEMMs (tiles_gemm.py)
    gemm_single_load: float = 0.5  # a one-step GEMM loads its tiles without a K loop
    gemm_accumulate_arg: float = 0.75  # wp.tile_matmul accumulates into its third argument rather than by +=
    epilogue_builtin: float = 0.5  # a GEMM epilogue maps a builtin activation rather than a helper
    trips_const: float = 0.4  # a GEMM's K-step count is a module constant
    trips_param: float = 0.4  # ... or an argument (the rest: A's width in tiles)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, float) or not 0.0 <= value <= 1.0:
                raise ValueError(f"odds: {f.name}={value!r} is not a probability in [0, 1]")
        for parts in (("trips_const", "trips_param"), ("reduce_sum", "reduce_op", "reduce_extreme")):
            if sum(getattr(self, p) for p in parts) > 1.0:
                raise ValueError(f"odds: {' + '.join(parts)} exceed 1")
