//! From the syntax tree to oxla's IR.
//!
//! The public function (`@main`) becomes the entry body: its arguments are
//! parameters 0..n, its returned values the root (a tuple when there are
//! several). Every other function exists only to be inlined: `func.call`
//! and `stablehlo.composite` lower the callee's body in place, its
//! arguments bound to the call's operands. A region (a reducer) becomes a
//! called body of its own, placed before its caller.
//!
//! Each op goes through one table entry ([`super::ops`]); every instruction
//! it creates goes through [`infer_instruction_shape`], the shape inference
//! the builder, the HLO parser and the verifier use, and the finished
//! computation through [`Computation::from_bodies`], which verifies it.
//! On top of that the MLIR's own types are checked: each operand against
//! the type the op's signature gives it, each result against the declared
//! result type, each function's results against its signature.
//!
//! Names: an op's result keeps its MLIR name without `%` (`%cst_0` is
//! `cst_0`); a numbered result is named after its op (`%3 =
//! stablehlo.add` is `add.3`); instructions an op needs besides its result,
//! and clashes (an inlined function's `%0`), get a suffix.
//!
//! Invariants: at most [`MAX_DEPTH`] calls and regions are open at once,
//! and the number of instructions created is capped by a budget that grows
//! with the text, so nested calls that double at every level fail instead
//! of exhausting memory.

use std::collections::{HashMap, HashSet};

use oxla_ir::ir::{Body, ComputationId, InstId, Instruction, OpKind};
use oxla_ir::shape_inference::infer_instruction_shape;
use oxla_ir::{Computation, Error, Literal, Result, Shape};

use super::dense::{self, Dense};
use super::ops::{self, Lower};
use super::source::Source;
use super::syntax::{
    Attr, AttrAt, Block, Func, Module, NamedAttr, Operation, Region, Type, TypeAt, Use,
};

/// The most calls and regions open at once (each is a level of recursion,
/// and a debug build must lower them within a 2 MiB stack).
const MAX_DEPTH: usize = 32;

/// The fewest instructions and inlined calls a module may cost; the budget
/// grows with the text (4 per byte). Calls that double at every level would
/// otherwise make 2^depth copies.
const MIN_BUDGET: usize = 1 << 14;

/// Attributes that carry no meaning for the values a program computes:
/// where values are placed or how they are partitioned (`mhlo.sharding`,
/// `mhlo.num_partitions`, `mhlo.memory_kind`, ...), their layout
/// (`mhlo.layout_mode`, the entry layouts), what to prefetch, which
/// buffers may be reused (`jax.buffer_donor`,
/// `tf.aliasing_output`), names for the caller (`jax.result_info`,
/// `jax.arg_info`) and annotations for other tools
/// (`mhlo.frontend_attributes`). They are read and dropped; every other
/// attribute is honoured by the op that has it or refused.
pub(super) const IGNORED_ATTRIBUTES: &[&str] = &[
    "mhlo.num_partitions",
    "mhlo.num_replicas",
    "mhlo.sharding",
    "mhlo.spmd_output_sharding",
    "mhlo.spmd_parameters_shardings",
    "mhlo.use_auto_spmd_partitioning",
    "mhlo.is_same_data_across_replicas",
    "mhlo.memory_kind",
    "mhlo.layout_mode",
    "mhlo.xla_entry_computation_parameter_layouts",
    "mhlo.xla_entry_computation_result_layouts",
    "mhlo.cross_program_prefetches",
    "mhlo.frontend_attributes",
    "jax.result_info",
    "jax.arg_info",
    "jax.buffer_donor",
    "jax.uses_shape_polymorphism",
    "tf.aliasing_output",
    "mhlo.input_output_alias",
];

/// Values visible in a block: `%name#k` by name and index, and how many
/// results each name has. A region that captures values from outside
/// (`stablehlo.if`, `case`, `while`) sees some results of a name only.
#[derive(Default)]
pub(super) struct Scope<'m> {
    values: HashMap<(&'m str, usize), InstId>,
    counts: HashMap<&'m str, usize>,
}

impl<'m> Scope<'m> {
    /// Defines `name`'s results; false if the name is taken.
    fn define(&mut self, name: &'m str, ids: &[InstId]) -> bool {
        if self.counts.contains_key(name) {
            return false;
        }
        self.counts.insert(name, ids.len());
        for (k, &id) in ids.iter().enumerate() {
            self.values.insert((name, k), id);
        }
        true
    }

    /// Binds one captured result, `%name#index`.
    fn capture(&mut self, name: &'m str, index: usize, id: InstId) {
        let count = self.counts.entry(name).or_insert(0);
        *count = (*count).max(index + 1);
        self.values.insert((name, index), id);
    }

    fn get(&self, name: &str, index: usize) -> Option<InstId> {
        self.values.get(&(name, index)).copied()
    }

    fn names(&self) -> impl Iterator<Item = &'m str> + '_ {
        self.counts.keys().copied()
    }
}

/// How a region's values enter the body it becomes.
#[derive(Default)]
pub(super) struct RegionParams<'m> {
    /// Values the region uses from outside it (`stablehlo.if`, `case` and
    /// `while` may), with their shapes: they enter as parameters too.
    pub(super) captures: Vec<(&'m Use, Shape)>,
    /// One parameter holding the block arguments, then the captures: a
    /// tuple, or the value itself when there is one (a loop's state, a
    /// branch's operand). Otherwise one parameter per block argument (a
    /// reducer's).
    pub(super) packed: bool,
    /// The body returns the captures after its own results, unchanged (a
    /// loop body passes them on to the next iteration).
    pub(super) pass_captures: bool,
}

/// Lowers a parsed module to a verified computation.
pub(super) fn lower(src: &Source<'_>, module: &Module) -> Result<Computation> {
    let mut funcs = HashMap::new();
    for f in &module.funcs {
        if funcs.insert(f.name.as_str(), f).is_some() {
            return Err(src.error(
                f.pos,
                format!("func.func: the function @{} is defined twice", f.name),
                "one definition per function",
            ));
        }
    }
    let mut lx = Lowerer {
        src,
        module,
        funcs,
        bodies: Vec::new(),
        calls: Vec::new(),
        outer: Vec::new(),
        depth: 0,
        budget: (src.text.len() * 4).max(MIN_BUDGET),
        splat_budget: (src.text.len() * 16).max(1 << 16),
    };
    let module_name = match &module.name {
        Some(n) => format!("module @{n}"),
        None => "module".to_string(),
    };
    lx.check_ignorable(&module.attrs, &module_name)?;
    for f in &module.funcs {
        let owner = format!("func.func @{}", f.name);
        lx.check_ignorable(&f.attrs, &owner)?;
        for a in f.body.blocks.first().map_or(&[][..], |b| &b.args[..]) {
            lx.check_ignorable(&a.attrs, &format!("{owner}: argument %{}", a.name))?;
        }
        for (k, r) in f.result_attrs.iter().enumerate() {
            lx.check_ignorable(r, &format!("{owner}: result {k}"))?;
        }
    }
    lx.entry()
}

pub(super) struct Lowerer<'m, 's, 'a> {
    src: &'s Source<'a>,
    module: &'m Module,
    funcs: HashMap<&'m str, &'m Func>,
    /// Finished called bodies, in the order their ids count.
    bodies: Vec<Body>,
    /// The functions being inlined, innermost last.
    calls: Vec<&'m str>,
    /// Names visible around the region being lowered, for messages.
    outer: Vec<HashSet<&'m str>>,
    depth: usize,
    /// Instructions that may still be created and calls that may still be
    /// inlined.
    budget: usize,
    /// Splat elements that may still be expanded into full constants.
    splat_budget: usize,
}

/// A body under construction.
pub(super) struct Target {
    instructions: Vec<Instruction>,
    names: HashSet<String>,
    /// The next suffix to try for each base name, so that finding a free
    /// name stays cheap when one name clashes thousands of times.
    suffixes: HashMap<String, usize>,
    /// Values an op read only while it was built (the shape operand of
    /// `stablehlo.rng`, which HLO's `rng` takes from its result type):
    /// dropped when the body is done if nothing else uses them.
    read_only: Vec<InstId>,
}

impl Target {
    fn new() -> Target {
        Target {
            instructions: Vec::new(),
            names: HashSet::new(),
            suffixes: HashMap::new(),
            read_only: Vec::new(),
        }
    }

    /// The instructions, without the [`Target::read_only`] ones that
    /// nothing uses (operands renumbered), and the root's new id.
    fn finish(self, root: InstId) -> (Vec<Instruction>, InstId) {
        let mut used = vec![false; self.instructions.len()];
        used[root.index()] = true;
        for i in &self.instructions {
            for o in &i.operands {
                used[o.index()] = true;
            }
        }
        let mut keep = vec![true; self.instructions.len()];
        for id in &self.read_only {
            keep[id.index()] = used[id.index()];
        }
        let mut new_id = Vec::with_capacity(keep.len());
        let mut next = 0u32;
        for &k in &keep {
            new_id.push(InstId(next));
            next += u32::from(k);
        }
        let instructions = self
            .instructions
            .into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(mut i, _)| {
                for o in &mut i.operands {
                    *o = new_id[o.index()];
                }
                i
            })
            .collect();
        (instructions, new_id[root.index()])
    }

    fn shape(&self, id: InstId) -> &Shape {
        &self.instructions[id.index()].shape
    }

    /// `base`, or `base.1`, `base.2`, ... whichever is free.
    fn unique(&mut self, base: &str) -> String {
        if !self.names.contains(base) {
            return base.to_string();
        }
        let next = self.suffixes.entry(base.to_string()).or_insert(1);
        loop {
            let name = format!("{base}.{next}");
            *next += 1;
            if !self.names.contains(&name) {
                return name;
            }
        }
    }

    fn push(&mut self, name: String, kind: OpKind, operands: Vec<InstId>, shape: Shape) -> InstId {
        let name = self.unique(&name);
        self.names.insert(name.clone());
        let id = InstId(self.instructions.len() as u32);
        self.instructions.push(Instruction {
            name,
            kind,
            operands,
            shape,
        });
        id
    }

    fn rename(&mut self, id: InstId, base: &str) {
        let old = std::mem::take(&mut self.instructions[id.index()].name);
        self.names.remove(&old);
        let name = self.unique(base);
        self.names.insert(name.clone());
        self.instructions[id.index()].name = name;
    }
}

/// An HLO name for an MLIR value name: the name without `%` when it can be
/// one, the op's name and the number otherwise (`%3` of an add is `add.3`).
fn hlo_name(mlir: &str, opcode: &str, k: usize) -> String {
    let clean: String = mlir
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = if clean.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        clean
    } else {
        format!("{opcode}.{clean}")
    };
    if k > 0 { format!("{base}.{k}") } else { base }
}

impl<'m, 's, 'a> Lowerer<'m, 's, 'a> {
    pub(super) fn err(
        &self,
        pos: usize,
        message: impl Into<String>,
        expected: impl Into<String>,
    ) -> Error {
        self.src.error(pos, message, expected)
    }

    /// Refuses attributes outside [`IGNORED_ATTRIBUTES`] where no op reads them.
    fn check_ignorable(&self, attrs: &[NamedAttr], owner: &str) -> Result<()> {
        match attrs.iter().find(|a| !IGNORED_ATTRIBUTES.contains(&a.key.as_str())) {
            None => Ok(()),
            Some(a) => Err(self.err(
                a.pos,
                format!(
                    "{owner}: the attribute `{}` is not supported: oxla does not know what it means, and ignoring it could change the result",
                    a.key
                ),
                "only attributes without meaning for the values (see docs/stablehlo.md)",
            )),
        }
    }

    /// The shape a value type stands for, or a located refusal.
    pub(super) fn value_shape(&self, t: &TypeAt, op: &str) -> Result<Shape> {
        let text = self.src.text.get(t.pos..t.end).unwrap_or("").trim();
        match &t.ty {
            Type::Value(s) => Ok(s.clone()),
            Type::Unsupported(why) => Err(self.err(
                t.pos,
                format!("{op}: the type `{text}` is not supported: {why}"),
                "a tensor of i1, i8..i64, ui8..ui64, f32 or f64 with static dims",
            )),
            Type::Scalar(_) | Type::Function(..) => Err(self.err(
                t.pos,
                format!("{op}: expected a tensor type, found `{text}`"),
                "`tensor<...>` or `tuple<...>`",
            )),
        }
    }

    fn entry(&mut self) -> Result<Computation> {
        let module = self.module;
        let main = match module.funcs.iter().find(|f| f.name == "main") {
            Some(f) => f,
            None => {
                let public: Vec<&Func> = module.funcs.iter().filter(|f| f.public).collect();
                match public.as_slice() {
                    [f] => *f,
                    _ => {
                        let name = module
                            .name
                            .as_deref()
                            .map_or(String::new(), |n| format!(" @{n}"));
                        return Err(self.err(
                            module.pos,
                            format!(
                                "module{name}: there is no @main function, and {} public functions to run instead",
                                public.len()
                            ),
                            "a `func.func public @main` to run",
                        ));
                    }
                }
            }
        };
        let name = match &module.name {
            Some(n) => hlo_name(n, "module", 0),
            None => hlo_name(&main.name, "module", 0),
        };
        let owner = format!("func.func @{}", main.name);
        let block = single_block(self, &main.body, &owner)?;
        let mut t = Target::new();
        let mut params = Vec::new();
        for (k, arg) in block.args.iter().enumerate() {
            let shape = self.value_shape(&arg.ty, &format!("{owner}: argument %{}", arg.name))?;
            let id = t.push(
                hlo_name(&arg.name, "parameter", 0),
                OpKind::Parameter { number: k as i64 },
                Vec::new(),
                shape,
            );
            params.push(id);
        }
        self.calls.push(main.name.as_str());
        let (values, ret) = self.lower_block(&mut t, block, &params, &[], &owner)?;
        self.calls.pop();
        self.check_returned(&t, main, &values, ret)?;
        let root = match values.as_slice() {
            [] => {
                return Err(self.err(
                    ret.pos,
                    format!(
                        "func.return: @{} returns nothing; oxla needs a result",
                        main.name
                    ),
                    "at least one returned value",
                ));
            }
            _ => match result_tree(main) {
                Some(tree) => build_root(&mut t, &tree, &values),
                None => match values.as_slice() {
                    [one] => *one,
                    many => build_root(
                        &mut t,
                        &ResultTree::Node((0..many.len()).map(ResultTree::Leaf).collect()),
                        many,
                    ),
                },
            },
        };
        let mut bodies = std::mem::take(&mut self.bodies);
        let taken: HashSet<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
        let mut entry_name = name.clone();
        let mut k = 1;
        while taken.contains(entry_name.as_str()) {
            entry_name = format!("{name}.{k}");
            k += 1;
        }
        let (instructions, root) = t.finish(root);
        bodies.push(Body {
            name: entry_name,
            instructions,
            root,
        });
        Computation::from_bodies(name, bodies).map_err(|e| {
            self.err(
                main.pos,
                format!("the lowered module does not verify: {e}"),
                "a module oxla can verify",
            )
        })
    }

    /// Checks what a function returns against its declared result types.
    fn check_returned(
        &self,
        t: &Target,
        f: &Func,
        values: &[InstId],
        ret: &Operation,
    ) -> Result<()> {
        if values.len() != f.results.len() {
            return Err(self.err(
                ret.pos,
                format!(
                    "{}: @{} returns {} value(s) but its signature declares {}",
                    ret.name,
                    f.name,
                    values.len(),
                    f.results.len()
                ),
                format!("{} returned value(s)", f.results.len()),
            ));
        }
        for (k, (&v, ty)) in values.iter().zip(&f.results).enumerate() {
            let want = self.value_shape(ty, &format!("func.func @{}: result {k}", f.name))?;
            if *t.shape(v) != want {
                let at = ret.operands.get(k).map_or(ret.pos, |u| u.pos);
                return Err(self.err(
                    at,
                    format!(
                        "{}: @{} returns {} as result {k}, but its signature declares {want}",
                        ret.name,
                        f.name,
                        t.shape(v)
                    ),
                    format!("a value of type {want}"),
                ));
            }
        }
        Ok(())
    }

    /// Takes one unit (an instruction or an inlined call) from the budget.
    fn spend(&mut self, pos: usize, op: &str) -> Result<()> {
        if self.budget == 0 {
            return Err(self.err(
                pos,
                format!(
                    "{op}: the module lowers to too many instructions (inlined calls multiply them)"
                ),
                "a smaller module, or fewer nested calls",
            ));
        }
        self.budget -= 1;
        Ok(())
    }

    fn enter(&mut self, pos: usize, op: &str) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(
                pos,
                format!("{op}: calls and regions nest more than {MAX_DEPTH} levels deep"),
                format!("at most {MAX_DEPTH} levels of calls and regions"),
            ));
        }
        Ok(())
    }

    /// Lowers a block's ops into `t`; returns the values its terminator
    /// returns and the terminator.
    fn lower_block(
        &mut self,
        t: &mut Target,
        block: &'m Block,
        args: &[InstId],
        captures: &[(&'m Use, InstId)],
        owner: &str,
    ) -> Result<(Vec<InstId>, &'m Operation)> {
        let mut scope = Scope::default();
        for (u, id) in captures {
            scope.capture(u.name.as_str(), u.index, *id);
        }
        for (a, &id) in block.args.iter().zip(args) {
            if !scope.define(a.name.as_str(), &[id]) {
                return Err(self.err(
                    a.pos,
                    format!("the block argument %{} is defined twice", a.name),
                    "distinct names",
                ));
            }
        }
        for (k, op) in block.ops.iter().enumerate() {
            let def = ops::lookup(&op.name).ok_or_else(|| {
                self.err(
                    op.pos,
                    format!("unknown op `{}`", op.name),
                    "a StableHLO op",
                )
            })?;
            if matches!(def.lower, Lower::Terminator) {
                if let Some(next) = block.ops.get(k + 1) {
                    return Err(self.err(
                        next.pos,
                        format!(
                            "{}: an op after the block's terminator `{}`",
                            next.name, op.name
                        ),
                        "the terminator last",
                    ));
                }
                let mut values = Vec::new();
                for (i, u) in op.operands.iter().enumerate() {
                    let id = self.resolve(&scope, u, op)?;
                    if let Some(ty) = op.operand_types.get(i) {
                        self.check_operand(t, id, u, ty, op)?;
                    }
                    values.push(id);
                }
                return Ok((values, op));
            }
            if !op.regions.is_empty() {
                self.outer.push(scope.names().collect());
            }
            let ids = self.lower_op(t, &scope, op, def.lower);
            if !op.regions.is_empty() {
                self.outer.pop();
            }
            let mut ids = ids?.into_iter();
            for r in &op.results {
                let group: Vec<InstId> = ids.by_ref().take(r.count).collect();
                if !scope.define(r.name.as_str(), &group) {
                    return Err(self.err(
                        r.pos,
                        format!("{}: the value %{} is defined twice", op.name, r.name),
                        "a fresh name",
                    ));
                }
            }
        }
        let at = block.ops.last().map_or(0, |o| o.pos);
        Err(self.err(
            at,
            format!("{owner}: the body does not end with a return"),
            "`return` (or `stablehlo.return` in a region) as the last op",
        ))
    }

    fn resolve(&self, scope: &Scope<'m>, u: &Use, op: &Operation) -> Result<InstId> {
        if let Some(id) = scope.get(&u.name, u.index) {
            return Ok(id);
        }
        match scope.counts.get(u.name.as_str()) {
            Some(&n) => Err(self.err(
                u.pos,
                format!("{}: %{}#{} does not exist; %{} has {n} result(s)", op.name, u.name, u.index, u.name),
                format!("an index below {n}"),
            )),
            None if self.outer.iter().any(|s| s.contains(u.name.as_str())) => Err(self.err(
                u.pos,
                format!(
                    "{}: %{} is defined outside this region; oxla lowers a region to a computation of its own, which cannot use outside values",
                    op.name, u.name
                ),
                "values defined in the region or its arguments",
            )),
            None => Err(self.err(
                u.pos,
                format!("{}: the value %{} is not defined", op.name, u.name),
                "a value defined earlier in the same block, or a block argument",
            )),
        }
    }

    fn check_operand(
        &self,
        t: &Target,
        id: InstId,
        u: &Use,
        ty: &TypeAt,
        op: &Operation,
    ) -> Result<()> {
        let want = self.value_shape(ty, &op.name)?;
        let have = t.shape(id);
        if *have == want {
            return Ok(());
        }
        let text = self.src.text.get(ty.pos..ty.end).unwrap_or("").trim();
        Err(self.err(
            u.pos,
            format!(
                "{}: the operand %{} has type {have}, but the op's signature gives it `{text}` ({want})",
                op.name, u.name
            ),
            format!("an operand of type {want}"),
        ))
    }

    fn lower_op(
        &mut self,
        t: &mut Target,
        scope: &Scope<'m>,
        op: &'m Operation,
        lower: Lower,
    ) -> Result<Vec<InstId>> {
        if op.operand_types.len() != op.operands.len() {
            return Err(self.err(
                op.pos,
                format!(
                    "{}: {} operand(s) but {} operand type(s)",
                    op.name,
                    op.operands.len(),
                    op.operand_types.len()
                ),
                "one type per operand",
            ));
        }
        let mut operands = Vec::with_capacity(op.operands.len());
        for (u, ty) in op.operands.iter().zip(&op.operand_types) {
            let id = self.resolve(scope, u, op)?;
            self.check_operand(t, id, u, ty, op)?;
            operands.push(id);
        }
        let results = op
            .result_types
            .iter()
            .map(|ty| self.value_shape(ty, &op.name))
            .collect::<Result<Vec<_>>>()?;
        let first_new = t.instructions.len();
        let mut cx = OpCx {
            lx: self,
            t,
            scope,
            op,
            operands,
            results,
            used: vec![false; op.attrs.len()],
        };
        let ids = match lower {
            Lower::Unary(u) => ops::unary(&mut cx, u)?,
            Lower::Binary(b) => ops::binary(&mut cx, b)?,
            Lower::ChloBinary(b) => ops::chlo_binary(&mut cx, b)?,
            Lower::Op(f) => f(&mut cx)?,
            Lower::Terminator | Lower::NotYet(_) => {
                return Err(cx.err(
                    op.pos,
                    "this op cannot appear here",
                    "an op that computes values",
                ));
            }
        };
        cx.finish_attrs()?;
        let results = std::mem::take(&mut cx.results);
        drop(cx);
        if ids.len() != results.len() {
            return Err(self.err(
                op.pos,
                format!(
                    "{}: the op gives {} result(s) but its type declares {}",
                    op.name,
                    ids.len(),
                    results.len()
                ),
                format!("{} result type(s)", ids.len()),
            ));
        }
        for (k, (&id, want)) in ids.iter().zip(&results).enumerate() {
            if t.shape(id) != want {
                let ty = &op.result_types[k];
                let text = self.src.text.get(ty.pos..ty.end).unwrap_or("").trim();
                return Err(self.err(
                    ty.pos,
                    format!(
                        "{}: the result type `{text}` ({want}) does not match the type its operands give, {}",
                        op.name,
                        t.shape(id)
                    ),
                    format!("the result type for {}", t.shape(id)),
                ));
            }
        }
        // Results the op created take the MLIR names.
        let mut k = 0;
        for r in &op.results {
            for j in 0..r.count {
                if let Some(&id) = ids.get(k)
                    && id.index() >= first_new
                    && !ids[..k].contains(&id)
                {
                    let opcode = t.instructions[id.index()].kind.opcode_name();
                    t.rename(id, &hlo_name(&r.name, opcode, j));
                }
                k += 1;
            }
        }
        Ok(ids)
    }

    /// Inlines `@callee` at a call: its body lowered into `t`, its arguments
    /// bound to `args`. Returns the values it returns.
    fn inline(
        &mut self,
        t: &mut Target,
        callee: &str,
        at: usize,
        args: &[InstId],
        op: &Operation,
    ) -> Result<Vec<InstId>> {
        let Some(&f) = self.funcs.get(callee) else {
            return Err(self.err(
                at,
                format!("{}: there is no function @{callee}", op.name),
                "a function defined in the module",
            ));
        };
        if self.calls.contains(&f.name.as_str()) {
            return Err(self.err(
                at,
                format!(
                    "{}: @{callee} calls itself (through @{}); recursion cannot be inlined",
                    op.name,
                    self.calls.join(" -> @")
                ),
                "calls without cycles",
            ));
        }
        let owner = format!("func.func @{}", f.name);
        let block = single_block(self, &f.body, &owner)?;
        if block.args.len() != args.len() {
            return Err(self.err(
                at,
                format!(
                    "{}: @{callee} takes {} argument(s), but {} are passed",
                    op.name,
                    block.args.len(),
                    args.len()
                ),
                format!("{} argument(s)", block.args.len()),
            ));
        }
        for (k, (a, &id)) in block.args.iter().zip(args).enumerate() {
            let want = self.value_shape(&a.ty, &format!("{owner}: argument %{}", a.name))?;
            if *t.shape(id) != want {
                let pos = op.operands.get(k).map_or(at, |u| u.pos);
                return Err(self.err(
                    pos,
                    format!(
                        "{}: argument {k} of @{callee} must be {want}, but {} is passed",
                        op.name,
                        t.shape(id)
                    ),
                    format!("a value of type {want}"),
                ));
            }
        }
        self.spend(at, &op.name)?;
        self.enter(at, &op.name)?;
        self.calls.push(f.name.as_str());
        let outer = std::mem::take(&mut self.outer);
        let lowered = self.lower_block(t, block, args, &[], &owner);
        self.outer = outer;
        self.calls.pop();
        self.depth -= 1;
        let (values, ret) = lowered?;
        self.check_returned(t, f, &values, ret)?;
        Ok(values)
    }

    /// Lowers a region to a called body of its own, its parameters and
    /// root laid out as `params` says; what it returns is the root (a
    /// tuple if several).
    fn region_body(
        &mut self,
        region: &'m Region,
        op: &Operation,
        kind: &str,
        params: &RegionParams<'m>,
    ) -> Result<ComputationId> {
        let block = single_block(self, region, &op.name)?;
        let mut shapes = Vec::new();
        for arg in &block.args {
            shapes.push(self.value_shape(&arg.ty, &op.name)?);
        }
        let n_args = shapes.len();
        shapes.extend(params.captures.iter().map(|(_, s)| s.clone()));
        let names: Vec<String> = block
            .args
            .iter()
            .map(|a| hlo_name(&a.name, "parameter", 0))
            .chain(
                params
                    .captures
                    .iter()
                    .map(|(u, _)| hlo_name(&u.name, "get-tuple-element", u.index)),
            )
            .collect();
        self.enter(region.pos, &op.name)?;
        let mut t = Target::new();
        let mut ids = Vec::new();
        if !params.packed {
            for (k, (name, shape)) in names.into_iter().zip(shapes).enumerate() {
                let number = k as i64;
                ids.push(t.push(name, OpKind::Parameter { number }, Vec::new(), shape));
            }
        } else if let [shape] = shapes.as_slice() {
            let name = names.into_iter().next().unwrap_or_default();
            let number = 0;
            ids.push(t.push(name, OpKind::Parameter { number }, vec![], shape.clone()));
        } else {
            let whole = Shape::tuple(shapes.clone());
            let p = t.push(
                "param".into(),
                OpKind::Parameter { number: 0 },
                vec![],
                whole,
            );
            for (k, (name, shape)) in names.into_iter().zip(shapes).enumerate() {
                self.spend(region.pos, &op.name)?;
                let index = k as i64;
                ids.push(t.push(name, OpKind::GetTupleElement { index }, vec![p], shape));
            }
        }
        let captured: Vec<(&'m Use, InstId)> = params
            .captures
            .iter()
            .map(|(u, _)| *u)
            .zip(ids[n_args..].iter().copied())
            .collect();
        let owner = format!("{} {kind}", op.name);
        let lowered = self.lower_block(&mut t, block, &ids[..n_args], &captured, &owner);
        self.depth -= 1;
        let (mut values, ret) = lowered?;
        if params.pass_captures {
            values.extend(captured.iter().map(|(_, id)| *id));
        }
        let root = match values.as_slice() {
            [one] => *one,
            [] if !params.packed => {
                return Err(self.err(
                    ret.pos,
                    format!("{}: the {kind} returns nothing", ret.name),
                    "a returned value",
                ));
            }
            many => {
                self.spend(ret.pos, &op.name)?;
                let shapes: Vec<Shape> = many.iter().map(|&v| t.shape(v).clone()).collect();
                t.push(
                    "tuple".into(),
                    OpKind::Tuple,
                    many.to_vec(),
                    Shape::tuple(shapes),
                )
            }
        };
        let taken: HashSet<&str> = self.bodies.iter().map(|b| b.name.as_str()).collect();
        let name = (self.bodies.len()..)
            .map(|k| format!("region_{k}"))
            .find(|n| !taken.contains(n.as_str()))
            .unwrap_or_default();
        let (instructions, root) = t.finish(root);
        self.bodies.push(Body {
            name,
            instructions,
            root,
        });
        Ok(ComputationId(self.bodies.len() as u32 - 1))
    }
}

/// How the entry's results nest into its root: a result, or a tuple.
enum ResultTree {
    Leaf(usize),
    Node(Vec<ResultTree>),
}

/// The nesting `jax.result_info` gives the results, when every result has
/// one of the form `result`, `result[0]`, `result[1][0]`, ... and together
/// they name the leaves of one tuple tree in order (what the exporter
/// writes for a nested root, and JAX for a nested tuple of arrays).
/// `None` otherwise (or deeper than [`MAX_DEPTH`]): the results are then a
/// flat tuple (or the one value).
fn result_tree(f: &Func) -> Option<ResultTree> {
    let mut paths = Vec::new();
    for attrs in &f.result_attrs {
        let info = attrs.iter().find(|a| a.key == "jax.result_info")?;
        let Attr::Str(text) = &info.value.attr else {
            return None;
        };
        let mut rest = text.strip_prefix("result")?;
        let mut path = Vec::new();
        while !rest.is_empty() {
            let inner = rest.strip_prefix('[')?;
            let close = inner.find(']')?;
            path.push(inner[..close].parse::<usize>().ok()?);
            rest = &inner[close + 1..];
            // Each level is a level of recursion below.
            if path.len() > MAX_DEPTH {
                return None;
            }
        }
        paths.push(path);
    }
    if paths.len() != f.results.len() || paths.is_empty() {
        return None;
    }
    let leaves: Vec<(usize, &[usize])> = paths
        .iter()
        .enumerate()
        .map(|(k, p)| (k, p.as_slice()))
        .collect();
    tree_of(&leaves)
}

/// The tree whose leaves, depth first, are `leaves` (each with its path
/// below this node), or `None` if they are not one.
fn tree_of(leaves: &[(usize, &[usize])]) -> Option<ResultTree> {
    if let [(k, [])] = leaves {
        return Some(ResultTree::Leaf(*k));
    }
    let mut children = Vec::new();
    let mut rest = leaves;
    while let Some(&(_, path)) = rest.first() {
        let (&first, _) = path.split_first()?;
        if first != children.len() {
            return None;
        }
        let n = rest
            .iter()
            .take_while(|(_, p)| p.first() == Some(&first))
            .count();
        let group: Vec<(usize, &[usize])> = rest[..n].iter().map(|&(k, p)| (k, &p[1..])).collect();
        children.push(tree_of(&group)?);
        rest = &rest[n..];
    }
    Some(ResultTree::Node(children))
}

/// The root for `tree` over the returned `values`: tuples where it nests.
fn build_root(t: &mut Target, tree: &ResultTree, values: &[InstId]) -> InstId {
    match tree {
        ResultTree::Leaf(k) => values[*k],
        ResultTree::Node(children) => {
            let parts: Vec<InstId> = children.iter().map(|c| build_root(t, c, values)).collect();
            let shapes = parts.iter().map(|&v| t.shape(v).clone()).collect();
            t.push("tuple".into(), OpKind::Tuple, parts, Shape::tuple(shapes))
        }
    }
}

/// The one block of a region (control flow between blocks is refused).
fn single_block<'m>(
    lx: &Lowerer<'m, '_, '_>,
    region: &'m Region,
    owner: &str,
) -> Result<&'m Block> {
    match region.blocks.as_slice() {
        [b] => Ok(b),
        [] => Err(lx.err(
            region.pos,
            format!("{owner}: the region is empty"),
            "a block ending with a return",
        )),
        _ => Err(lx.err(
            region.pos,
            format!(
                "{owner}: a region of {} blocks; control flow between blocks is not supported",
                region.blocks.len()
            ),
            "a region of one block",
        )),
    }
}

/// The values `regions` use from outside them, in the order of their
/// first use (nested regions included). MLIR names a value once in a
/// region and everything it encloses, so a name defined anywhere inside is
/// not a capture.
fn free_uses<'m>(regions: &[&'m Region]) -> Vec<&'m Use> {
    fn walk<'m>(region: &'m Region, defined: &mut HashSet<&'m str>, uses: &mut Vec<&'m Use>) {
        for block in &region.blocks {
            defined.extend(block.args.iter().map(|a| a.name.as_str()));
            for op in &block.ops {
                uses.extend(&op.operands);
                defined.extend(op.results.iter().map(|r| r.name.as_str()));
                for inner in &op.regions {
                    walk(inner, defined, uses);
                }
            }
        }
    }
    let (mut defined, mut uses) = (HashSet::new(), Vec::new());
    for r in regions {
        walk(r, &mut defined, &mut uses);
    }
    let mut seen = HashSet::new();
    uses.into_iter()
        .filter(|u| !defined.contains(u.name.as_str()) && seen.insert((u.name.as_str(), u.index)))
        .collect()
}

/// What an op's lowering function works with: its resolved operands, its
/// declared result shapes, its attributes, and the body being built.
pub(super) struct OpCx<'l, 'm, 's, 'a> {
    lx: &'l mut Lowerer<'m, 's, 'a>,
    t: &'l mut Target,
    /// The values visible where the op stands.
    scope: &'l Scope<'m>,
    pub(super) op: &'m Operation,
    /// The operands, checked against the op's signature.
    pub(super) operands: Vec<InstId>,
    /// The declared result shapes.
    pub(super) results: Vec<Shape>,
    used: Vec<bool>,
}

impl<'m, 'a> OpCx<'_, 'm, '_, 'a> {
    /// A located error whose message names the op.
    pub(super) fn err(
        &self,
        pos: usize,
        message: impl AsRef<str>,
        expected: impl Into<String>,
    ) -> Error {
        self.lx.err(
            pos,
            format!("{}: {}", self.op.name, message.as_ref()),
            expected,
        )
    }

    pub(super) fn shape(&self, id: InstId) -> Shape {
        self.t.shape(id).clone()
    }

    /// Requires `n` operands and `m` results.
    pub(super) fn arity(&self, n: usize, m: usize) -> Result<()> {
        if self.operands.len() != n {
            return Err(self.err(
                self.op.pos,
                format!("takes {n} operand(s), but has {}", self.operands.len()),
                format!("{n} operand(s)"),
            ));
        }
        if self.results.len() != m {
            return Err(self.err(
                self.op.pos,
                format!(
                    "has {m} result(s), but its type declares {}",
                    self.results.len()
                ),
                format!("{m} result type(s)"),
            ));
        }
        Ok(())
    }

    /// Adds an instruction; its shape is what shape inference gives
    /// (`declared` supplies what the op does not determine: reshape and
    /// broadcast dims, a convert's element type, an iota's shape).
    pub(super) fn push(
        &mut self,
        kind: OpKind,
        operands: Vec<InstId>,
        declared: &Shape,
    ) -> Result<InstId> {
        self.lx.spend(self.op.pos, &self.op.name)?;
        let shapes: Vec<&Shape> = operands.iter().map(|&o| self.t.shape(o)).collect();
        let bodies = &self.lx.bodies;
        let called = |id: ComputationId| -> Option<(Vec<Shape>, Shape)> {
            let b = bodies.get(id.index())?;
            let root = b.instructions.get(b.root.index())?;
            Some((b.parameter_shapes(), root.shape.clone()))
        };
        let shape = infer_instruction_shape(&kind, &shapes, declared, &called).map_err(|e| {
            self.err(
                self.op.pos,
                e.to_string(),
                "operands and attributes that fit together",
            )
        })?;
        let same_rank = shapes.len() == 2 && shapes[0].rank() == shapes[1].rank();
        let mut kind = kind;
        if let OpKind::Binary {
            broadcast_dimensions,
            ..
        } = &mut kind
            && same_rank
        {
            broadcast_dimensions.clear();
        }
        let name = format!("{}.{}", kind.opcode_name(), self.t.instructions.len());
        Ok(self.t.push(name, kind, operands, shape))
    }

    /// A constant instruction for `literal`.
    pub(super) fn constant(&mut self, literal: Literal) -> Result<InstId> {
        let shape = literal.shape().clone();
        self.push(OpKind::Constant { literal }, Vec::new(), &shape)
    }

    /// A `dense<...>`/`dense_resource<...>` attribute read as `shape`: one
    /// constant, or a scalar constant broadcast when it is a splat too large
    /// to expand.
    pub(super) fn dense_constant(&mut self, attr: &AttrAt, shape: &Shape) -> Result<InstId> {
        if let Attr::Dense(_, Some(ty)) | Attr::DenseResource(_, Some(ty)) = &attr.attr {
            let own = self.lx.value_shape(ty, &self.op.name)?;
            if own != *shape {
                return Err(self.err(
                    ty.pos,
                    format!("the constant's type is {own}, but the op's result is {shape}"),
                    format!("a constant of type {shape}"),
                ));
            }
        }
        if !shape.is_array() {
            return Err(self.err(
                attr.pos,
                format!("a constant of tuple type {shape}"),
                "an array constant",
            ));
        }
        let lx = &mut *self.lx;
        let lit = dense::dense_literal(
            lx.src,
            &lx.module.resources,
            attr,
            shape,
            &mut lx.splat_budget,
            &self.op.name,
        )?;
        match lit {
            Dense::Full(l) => self.constant(l),
            Dense::Splat(scalar) => {
                let c = self.constant(scalar)?;
                self.push(
                    OpKind::Broadcast {
                        dimensions: Vec::new(),
                    },
                    vec![c],
                    shape,
                )
            }
        }
    }

    /// Marks `id` as read only while the op was built: it is dropped when
    /// the body is done if nothing uses it.
    pub(super) fn read_only(&mut self, id: InstId) {
        self.t.read_only.push(id);
    }

    /// The literal `id` holds when it is a constant: for operands whose
    /// values an op needs while it is built (the misc family's
    /// `stablehlo.rng` shape).
    pub(super) fn constant_value(&self, id: InstId) -> Option<&Literal> {
        let OpKind::Constant { literal } = &self.t.instructions.get(id.index())?.kind else {
            return None;
        };
        Some(literal)
    }

    /// The attribute `key`, marked as read.
    pub(super) fn attr(&mut self, key: &str) -> Option<&'m AttrAt> {
        let k = self.op.attrs.iter().position(|a| a.key == key)?;
        self.used[k] = true;
        Some(&self.op.attrs[k].value)
    }

    /// The attribute `key`, which the op must have.
    pub(super) fn required(&mut self, key: &str, example: &str) -> Result<&'m AttrAt> {
        match self.attr(key) {
            Some(a) => Ok(a),
            None => Err(self.err(
                self.op.pos,
                format!("the attribute `{key}` is missing"),
                example,
            )),
        }
    }

    /// An integer attribute.
    pub(super) fn int(&mut self, key: &str, example: &str) -> Result<i64> {
        let a = self.required(key, example)?;
        match &a.attr {
            Attr::Int(v) => i64::try_from(*v).map_err(|_| {
                self.err(
                    a.pos,
                    format!("`{key}` = {v} does not fit in 64 bits"),
                    example,
                )
            }),
            other => Err(self.err(
                a.pos,
                format!("`{key}` must be an integer, not {}", dense::describe(other)),
                example,
            )),
        }
    }

    /// A list of integers: `[1, 2]`, `array<i64: 1, 2>` or
    /// `dense<[1, 2]> : tensor<2xi64>`.
    pub(super) fn ints(&mut self, key: &str, example: &str) -> Result<Vec<i64>> {
        let a = self.required(key, example)?;
        self.int_list(a, key, example)
    }

    pub(super) fn int_list(&self, a: &AttrAt, key: &str, example: &str) -> Result<Vec<i64>> {
        let bad = |why: String| self.err(a.pos, format!("`{key}` {why}"), example.to_string());
        let fit = |v: i128| {
            i64::try_from(v).map_err(|_| bad(format!("holds {v}, which does not fit in 64 bits")))
        };
        match &a.attr {
            Attr::DenseArray(vs) => vs.iter().map(|&v| fit(v)).collect(),
            Attr::Array(items) => items
                .iter()
                .map(|i| match &i.attr {
                    Attr::Int(v) => fit(*v),
                    other => Err(bad(format!(
                        "must hold integers, not {}",
                        dense::describe(other)
                    ))),
                })
                .collect(),
            Attr::Dense(..) => {
                let ty = match &a.attr {
                    Attr::Dense(_, Some(t)) => self.lx.value_shape(t, &self.op.name)?,
                    _ => return Err(bad("needs a type (`dense<[1, 2]> : tensor<2xi64>`)".into())),
                };
                if ty.rank() > 1 || !ty.element_type().is_integer() || ty.element_count() > 1 << 16
                {
                    return Err(bad(format!("must be a rank-1 integer tensor, not {ty}")));
                }
                let mut budget = usize::MAX;
                let lit = dense::dense_literal(
                    self.lx.src,
                    &self.lx.module.resources,
                    a,
                    &ty,
                    &mut budget,
                    &self.op.name,
                )?;
                let Dense::Full(l) = lit else {
                    return Err(bad("is not a list".into()));
                };
                Ok((0..l.element_count())
                    .map(|i| {
                        l.array_data()
                            .map_or(0, |d| d.format_value(i).parse::<i64>().unwrap_or(0))
                    })
                    .collect())
            }
            other => Err(bad(format!(
                "must be a list of integers, not {}",
                dense::describe(other)
            ))),
        }
    }

    /// A list of integers that may be absent.
    pub(super) fn opt_ints(&mut self, key: &str, example: &str) -> Result<Option<Vec<i64>>> {
        match self.attr(key) {
            None => Ok(None),
            Some(a) => self.int_list(a, key, example).map(Some),
        }
    }

    /// A boolean attribute, false when absent (`indices_are_sorted`).
    pub(super) fn flag(&mut self, key: &str) -> Result<bool> {
        let Some(a) = self.attr(key) else {
            return Ok(false);
        };
        match &a.attr {
            Attr::Bool(b) => Ok(*b),
            Attr::Unit => Ok(true),
            other => Err(self.err(
                a.pos,
                format!(
                    "`{key}` must be true or false, not {}",
                    dense::describe(other)
                ),
                format!("{key} = false"),
            )),
        }
    }

    /// A list of booleans that may be absent (`window_reversal`):
    /// `array<i1: true, false>`, `[true, false]`, `[1, 0]` or a dense `i1`
    /// tensor.
    pub(super) fn opt_bools(&mut self, key: &str, example: &str) -> Result<Option<Vec<bool>>> {
        let Some(a) = self.attr(key) else {
            return Ok(None);
        };
        if let Attr::Array(items) = &a.attr
            && items.iter().all(|i| matches!(i.attr, Attr::Bool(_)))
        {
            return Ok(Some(
                items
                    .iter()
                    .map(|i| matches!(i.attr, Attr::Bool(true)))
                    .collect(),
            ));
        }
        if let Attr::Dense(_, Some(t)) = &a.attr
            && let super::syntax::Type::Value(s) = &t.ty
            && s.is_array()
            && s.element_type().is_pred()
        {
            let mut budget = usize::MAX;
            let lit = dense::dense_literal(
                self.lx.src,
                &self.lx.module.resources,
                a,
                s,
                &mut budget,
                &self.op.name,
            )?;
            let Dense::Full(l) = lit else {
                return Err(self.err(a.pos, format!("`{key}` is not a list"), example));
            };
            return Ok(Some(l.to_vec::<bool>().unwrap_or_default()));
        }
        let list = self.int_list(a, key, example)?;
        list.iter()
            .map(|&v| match v {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(self.err(a.pos, format!("`{key}` holds {v}, not a boolean"), example)),
            })
            .collect::<Result<Vec<bool>>>()
            .map(Some)
    }

    /// `(low, high)` pairs, one per dimension, that may be absent
    /// (`padding`): `dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>` (a splat
    /// too), or the pretty form's `[[0, 1], [1, 0]]`.
    pub(super) fn opt_pairs(
        &mut self,
        key: &str,
        example: &str,
    ) -> Result<Option<Vec<(i64, i64)>>> {
        let Some(a) = self.attr(key) else {
            return Ok(None);
        };
        let bad = |cx: &Self, why: String| cx.err(a.pos, format!("`{key}` {why}"), example);
        match &a.attr {
            Attr::Array(items) => items
                .iter()
                .map(|item| {
                    let pair = self.int_list(item, key, example)?;
                    match pair.as_slice() {
                        &[lo, hi] => Ok((lo, hi)),
                        _ => Err(bad(
                            self,
                            format!("has an entry of {} values, not 2", pair.len()),
                        )),
                    }
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Attr::Dense(_, Some(t)) => {
                let ty = self.lx.value_shape(t, &self.op.name)?;
                if ty.rank() != 2 || ty.dims()[1] != 2 || !ty.element_type().is_integer() {
                    return Err(bad(
                        self,
                        format!("must be an Nx2 integer tensor, not {ty}"),
                    ));
                }
                if ty.element_count() > 1 << 16 {
                    return Err(bad(self, format!("is too large ({ty})")));
                }
                let mut budget = usize::MAX;
                let lit = dense::dense_literal(
                    self.lx.src,
                    &self.lx.module.resources,
                    a,
                    &ty,
                    &mut budget,
                    &self.op.name,
                )?;
                let values: Vec<i64> = match lit {
                    Dense::Full(l) => (0..l.element_count())
                        .map(|i| {
                            l.array_data()
                                .map_or(0, |d| d.format_value(i).parse::<i64>().unwrap_or(0))
                        })
                        .collect(),
                    Dense::Splat(l) => {
                        let v = l
                            .array_data()
                            .map_or(0, |d| d.format_value(0).parse::<i64>().unwrap_or(0));
                        vec![v; ty.element_count() as usize]
                    }
                };
                Ok(Some(values.chunks(2).map(|c| (c[0], c[1])).collect()))
            }
            other => Err(bad(
                self,
                format!(
                    "must be an Nx2 integer tensor, not {}",
                    dense::describe(other)
                ),
            )),
        }
    }

    /// An enum attribute's value: `GT` from `#stablehlo<comparison_direction
    /// GT>` or from the pretty form's bare `GT`.
    pub(super) fn word(&mut self, key: &str) -> Option<(String, usize)> {
        let a = self.attr(key)?;
        Some((self.word_of(a), a.pos))
    }

    pub(super) fn word_of(&self, a: &AttrAt) -> String {
        match &a.attr {
            Attr::Keyword(w) | Attr::Str(w) => w.clone(),
            Attr::Dialect(s, e) => {
                let inner = self.lx.src.text.get(*s..*e).unwrap_or("");
                inner.split_whitespace().last().unwrap_or("").to_string()
            }
            other => dense::describe(other).to_string(),
        }
    }

    /// The `key = value` parameters of a dialect attribute
    /// (`#stablehlo.dot<lhs_contracting_dimensions = [1], ...>`), or of the
    /// dictionary a pretty form stores in its place.
    pub(super) fn params(&self, a: &'m AttrAt) -> Result<Vec<NamedAttr>> {
        match &a.attr {
            Attr::Dict(d) => Ok(d.clone()),
            Attr::Dialect(s, e) => super::syntax::parse_params(self.lx.src, *s, *e),
            other => Err(self.err(
                a.pos,
                format!(
                    "expected a dialect attribute, found {}",
                    dense::describe(other)
                ),
                "#stablehlo.name<...>",
            )),
        }
    }

    /// The source text between two offsets (inside a dialect attribute).
    pub(super) fn source_text(&self, start: usize, end: usize) -> &'a str {
        self.lx.src.text.get(start..end).unwrap_or("")
    }

    /// The `key = value` parameters between two offsets of the text.
    pub(super) fn parse_params(&self, start: usize, end: usize) -> Result<Vec<NamedAttr>> {
        super::syntax::parse_params(self.lx.src, start, end)
    }

    /// A symbol attribute (`decomposition = @f`).
    pub(super) fn symbol(&mut self, key: &str, example: &str) -> Result<(&'m str, usize)> {
        let a = self.required(key, example)?;
        match &a.attr {
            Attr::Symbol(s) => Ok((s.as_str(), a.pos)),
            other => Err(self.err(
                a.pos,
                format!("`{key}` must be a symbol, not {}", dense::describe(other)),
                example,
            )),
        }
    }

    /// Marks attributes as read without interpreting them (those whose
    /// meaning the lowering already carries).
    pub(super) fn read(&mut self, keys: &[&str]) {
        for k in keys {
            self.attr(k);
        }
    }

    /// Refuses the attributes no lowering read, except the ignorable ones.
    fn finish_attrs(&self) -> Result<()> {
        for (a, &used) in self.op.attrs.iter().zip(&self.used) {
            if !used && !IGNORED_ATTRIBUTES.contains(&a.key.as_str()) {
                return Err(self.err(
                    a.pos,
                    format!(
                        "the attribute `{}` is not supported: oxla does not know what it means here, and ignoring it could change the result",
                        a.key
                    ),
                    "the op's own attributes",
                ));
            }
        }
        Ok(())
    }

    /// Region `k` of the op as a called body, one parameter per block
    /// argument (a reducer, a comparator, a map's computation).
    pub(super) fn region_body(&mut self, k: usize, kind: &str) -> Result<ComputationId> {
        self.region_with(k, kind, RegionParams::default())
    }

    /// Region `k` of the op as a called body taking one parameter: its
    /// block arguments, then `captures`, as a tuple (or the one value);
    /// `pass_captures` makes it return the captures after its results.
    pub(super) fn packed_region(
        &mut self,
        k: usize,
        kind: &str,
        captures: &[(&'m Use, InstId)],
        pass_captures: bool,
    ) -> Result<ComputationId> {
        let captures = captures
            .iter()
            .map(|&(u, id)| (u, self.shape(id)))
            .collect();
        let params = RegionParams {
            captures,
            packed: true,
            pass_captures,
        };
        self.region_with(k, kind, params)
    }

    fn region_with(
        &mut self,
        k: usize,
        kind: &str,
        params: RegionParams<'m>,
    ) -> Result<ComputationId> {
        let Some(region) = self.op.regions.get(k) else {
            return Err(self.err(
                self.op.pos,
                format!("the {kind} region is missing"),
                format!("a {kind} region"),
            ));
        };
        self.lx.region_body(region, self.op, kind, &params)
    }

    /// The values regions `ks` of the op use from outside them, in the
    /// order of their first use, resolved where the op stands.
    pub(super) fn captures(&self, ks: &[usize]) -> Result<Vec<(&'m Use, InstId)>> {
        let regions: Vec<&'m Region> = ks.iter().filter_map(|&k| self.op.regions.get(k)).collect();
        free_uses(&regions)
            .into_iter()
            .map(|u| Ok((u, self.lx.resolve(self.scope, u, self.op)?)))
            .collect()
    }

    /// `values` as one: the value itself when there is one, a tuple
    /// otherwise (how the IR's while, conditional, variadic reduce and
    /// barrier take several values).
    pub(super) fn pack(&mut self, values: &[InstId]) -> Result<InstId> {
        if let [one] = values {
            return Ok(*one);
        }
        let shape = Shape::tuple(values.iter().map(|&v| self.shape(v)).collect());
        self.push(OpKind::Tuple, values.to_vec(), &shape)
    }

    /// The inverse of [`OpCx::pack`]: the `count` values `id` holds.
    pub(super) fn unpack(&mut self, id: InstId, count: usize) -> Result<Vec<InstId>> {
        if count == 1 {
            return Ok(vec![id]);
        }
        let shape = self.shape(id);
        let parts = shape.tuple_shapes().to_vec();
        if !shape.is_tuple() || parts.len() != count {
            return Err(self.err(
                self.op.pos,
                format!("gives {shape}, not {count} values"),
                format!("{count} results"),
            ));
        }
        (0..count)
            .map(|k| {
                let kind = OpKind::GetTupleElement { index: k as i64 };
                self.push(kind, vec![id], &parts[k])
            })
            .collect()
    }

    /// The number of regions the op has.
    pub(super) fn region_count(&self) -> usize {
        self.op.regions.len()
    }

    /// Inlines `@callee` with `args`.
    pub(super) fn call(&mut self, callee: &str, at: usize, args: &[InstId]) -> Result<Vec<InstId>> {
        self.lx.inline(self.t, callee, at, args, self.op)
    }
}
