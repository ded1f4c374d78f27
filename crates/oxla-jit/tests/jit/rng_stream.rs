//! `rng` in loop bodies and branches (the stream counter threaded through
//! them, `oxla_ir::passes::stream`) against the interpreter: random nests
//! of counted loops (trip counts from the arguments, zero included) and
//! conditionals (the selector from the arguments, out of range included),
//! each drawing uniform values of a random type and size before, inside
//! and after. Every value depends on the stream position, so a counter
//! off by one block anywhere shows; uniform values are exact (bit for
//! bit).

use oxla_ir::{Builder, Computation, ElementType, Literal, Op, Result, Shape};
use oxla_testgen::Rng;

use crate::common::*;

/// The types `rng` draws uniformly, with the bounds used for each.
const TYPES: [ElementType; 7] = [
    ElementType::F32,
    ElementType::F64,
    ElementType::S32,
    ElementType::S64,
    ElementType::U8,
    ElementType::U16,
    ElementType::Pred,
];

fn bounds(b: &mut Builder, ty: ElementType) -> Result<(Op, Op)> {
    let lo = b.constant(Literal::scalar(-3i64))?;
    let hi = b.constant(Literal::scalar(1000i64))?;
    let (lo, hi) = match ty {
        ElementType::U8 | ElementType::U16 | ElementType::Pred => {
            let z = b.constant(Literal::scalar(1i64))?;
            (z, hi)
        }
        _ => (lo, hi),
    };
    Ok((b.convert(lo, ty)?, b.convert(hi, ty)?))
}

/// `acc + sum(convert(rng))` of a random type and size, as `f64[]`.
fn draw(b: &mut Builder, rng: &mut Rng, acc: Op) -> Result<Op> {
    let ty = TYPES[rng.below(TYPES.len() as u64) as usize];
    let n = 1 + rng.below(70) as i64;
    let (lo, hi) = bounds(b, ty)?;
    let r = b.rng_uniform(lo, hi, Shape::new(ty, &[n]))?;
    let r = b.convert(r, ElementType::F64)?;
    // A weighted sum, so every element's value shows.
    let w = b.iota(Shape::new(ElementType::F64, &[n]), 0)?;
    let r = b.mul(r, w, &[])?;
    let zero = b.constant(Literal::scalar(0f64))?;
    let add = {
        let mut a = Builder::new("add");
        let x = a.parameter(0, Shape::scalar(ElementType::F64), "x")?;
        let y = a.parameter(1, Shape::scalar(ElementType::F64), "y")?;
        let s = a.add(x, y, &[])?;
        a.build(s)?
    };
    let s = b.reduce(r, zero, &[0], &add)?;
    b.add(acc, s, &[])
}

/// A region body `(s32[] trips, s32[] selector, f64[] acc) -> same`,
/// drawing and nesting loops and branches `depth` levels more.
fn region(rng: &mut Rng, name: &str, depth: u32) -> Result<Computation> {
    let state = Shape::tuple(vec![
        Shape::scalar(ElementType::S32),
        Shape::scalar(ElementType::S32),
        Shape::scalar(ElementType::F64),
    ]);
    let mut b = Builder::new(name);
    let p = b.parameter(0, state.clone(), "p")?;
    let trips = b.get_tuple_element(p, 0)?;
    let sel = b.get_tuple_element(p, 1)?;
    let mut acc = b.get_tuple_element(p, 2)?;
    for k in 0..1 + rng.below(3) {
        acc = match if depth > 0 { rng.below(3) } else { 2 } {
            0 => {
                // A counted loop: `trips` iterations (none when <= 0).
                let inner = region(rng, &format!("{name}_w{k}"), depth - 1)?;
                let wstate = Shape::tuple(vec![Shape::scalar(ElementType::S32), state.clone()]);
                let cond = {
                    let mut c = Builder::new(&format!("{name}_c{k}"));
                    let s = c.parameter(0, wstate.clone(), "s")?;
                    let i = c.get_tuple_element(s, 0)?;
                    let inner_state = c.get_tuple_element(s, 1)?;
                    let t = c.get_tuple_element(inner_state, 0)?;
                    let lt = c.lt(i, t, &[])?;
                    c.build(lt)?
                };
                let body = wrap(&inner, &wstate)?;
                let z = b.constant(Literal::scalar(0i32))?;
                let st = b.tuple(&[trips, sel, acc])?;
                let init = b.tuple(&[z, st])?;
                let w = b.while_loop(&cond, &body, init)?;
                let st = b.get_tuple_element(w, 1)?;
                b.get_tuple_element(st, 2)?
            }
            1 => {
                // Three branches, one of which draws nothing.
                let a = region(rng, &format!("{name}_x{k}"), depth - 1)?;
                let c = region(rng, &format!("{name}_y{k}"), depth - 1)?;
                let idle = {
                    let mut d = Builder::new(&format!("{name}_idle{k}"));
                    let s = d.parameter(0, state.clone(), "s")?;
                    d.build(s)?
                };
                let st = b.tuple(&[trips, sel, acc])?;
                let r = b.indexed_conditional(sel, &[&a, &idle, &c], &[st, st, st])?;
                b.get_tuple_element(r, 2)?
            }
            _ => draw(&mut b, rng, acc)?,
        };
    }
    let t = b.tuple(&[trips, sel, acc])?;
    b.build(t)
}

/// `region` as a loop body over `(i, state)`, counting `i` up.
fn wrap(region: &Computation, wstate: &Shape) -> Result<Computation> {
    let mut d = Builder::new("wrapped");
    let s = d.parameter(0, wstate.clone(), "s")?;
    let i = d.get_tuple_element(s, 0)?;
    let one = d.constant(Literal::scalar(1i32))?;
    let i = d.add(i, one, &[])?;
    let st = d.get_tuple_element(s, 1)?;
    // The region through a conditional of one branch.
    let z = d.constant(Literal::scalar(0i32))?;
    let st = d.indexed_conditional(z, &[region], &[st])?;
    let t = d.tuple(&[i, st])?;
    d.build(t)
}

#[test]
fn rng_in_random_loops_and_branches_matches_the_interpreter() {
    let mut checked = 0;
    for seed in 0..12u64 {
        let mut rng = Rng::new(5_000 + seed);
        let body = region(&mut rng, "top", 2).expect("region");
        let mut b = Builder::new("rng_stream");
        let trips = b
            .parameter(0, Shape::scalar(ElementType::S32), "trips")
            .expect("trips");
        let sel = b
            .parameter(1, Shape::scalar(ElementType::S32), "sel")
            .expect("sel");
        let zero = b.constant(Literal::scalar(0f64)).expect("zero");
        let first = draw(&mut b, &mut rng, zero).expect("draw");
        let st = b.tuple(&[trips, sel, first]).expect("tuple");
        let z = b.constant(Literal::scalar(0i32)).expect("z");
        let r = b
            .indexed_conditional(z, &[&body], &[st])
            .expect("conditional");
        let acc = b.get_tuple_element(r, 2).expect("acc");
        let last = draw(&mut b, &mut rng, acc).expect("draw");
        let comp = b.build(last).expect("build");
        let exe = oxla_jit::compile(&comp).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{comp}"));
        for (t, s) in [(0i32, 0i32), (1, 1), (3, 2), (2, 7), (-1, -1)] {
            let args = [Literal::scalar(t), Literal::scalar(s)];
            let refs: Vec<&Literal> = args.iter().collect();
            let want = oxla_interp::evaluate(&comp, &refs).expect("interpreter");
            let got = exe.run(&refs).expect("jit");
            if let Some(d) = difference(&got, &want, Tol::Exact) {
                panic!("seed {seed}, trips {t}, selector {s}: {d}\n{comp}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 12 * 5);
}

#[test]
fn rng_where_the_stream_is_not_threaded_is_refused() {
    // An rng in a reducer: drawn once per element the interpreter folds.
    let mut r = Builder::new("drawing_add");
    let x = r
        .parameter(0, Shape::scalar(ElementType::F32), "x")
        .expect("x");
    let y = r
        .parameter(1, Shape::scalar(ElementType::F32), "y")
        .expect("y");
    let lo = r.constant(Literal::scalar(0f32)).expect("lo");
    let hi = r.constant(Literal::scalar(1f32)).expect("hi");
    let u = r
        .rng_uniform(lo, hi, Shape::scalar(ElementType::F32))
        .expect("rng");
    let s = r.add(x, y, &[]).expect("add");
    let s = r.add(s, u, &[]).expect("add");
    let reducer = r.build(s).expect("reducer");
    let (mut b, p) = builder("reduce_draws", &[sh(ElementType::F32, &[5])]);
    let zero = b.constant(Literal::scalar(0f32)).expect("zero");
    let red = b.reduce(p[0], zero, &[0], &reducer).expect("reduce");
    let comp = b.build(red).expect("build");
    match oxla_jit::compile(&comp) {
        Err(oxla_ir::Error::UnsupportedOp { op, reason, .. }) => {
            assert_eq!(op, "rng");
            assert!(reason.contains("called per element"), "{reason}");
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("the JIT compiled an rng in a reducer"),
    }
    assert!(oxla_interp::evaluate(&comp, &[&values(&sh(ElementType::F32, &[5]), 1)]).is_ok());
}
