//! A loop's state is not copied per iteration: a `while` whose state
//! carries a large array it never changes allocates nothing for that array,
//! however many times it runs, so a long loop costs time and memory linear
//! in its trip count.
//!
//! This binary counts every byte allocated (a global allocator that
//! delegates to the system's and adds up the sizes asked for) while the
//! interpreter runs a loop over the state `(i, big, small)`: `i` counts to
//! the trip count, `big` (4 MiB) passes through untouched, `small` (16
//! bytes) gets 1 added per step. Bytes are counted rather than time taken,
//! so the test is exact and fast.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use oxla_ir::{Builder, Computation, ElementType::F32, ElementType::S32, Literal, Shape};

/// The system allocator, counting the bytes allocated.
struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`, which upholds
// `GlobalAlloc`'s contract; counting touches only an atomic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on as given.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: as for `alloc` and `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const BIG: i64 = 1 << 20;

/// `while (i < steps) { (i, big, small) = (i + 1, big, small + 1) }`.
fn passthrough_loop(steps: i32) -> Result<Computation, oxla_ir::Error> {
    let state = Shape::tuple(vec![
        Shape::scalar(S32),
        Shape::new(F32, &[BIG]),
        Shape::new(F32, &[4]),
    ]);
    let mut c = Builder::new("more");
    let s = c.parameter(0, state.clone(), "s")?;
    let i = c.get_tuple_element(s, 0)?;
    let limit = c.constant_scalar(steps)?;
    let go = c.lt(i, limit, &[])?;
    let condition = c.build(go)?;

    let mut b = Builder::new("step");
    let s = b.parameter(0, state.clone(), "s")?;
    let i = b.get_tuple_element(s, 0)?;
    let big = b.get_tuple_element(s, 1)?;
    let small = b.get_tuple_element(s, 2)?;
    let one = b.constant_scalar(1i32)?;
    let next_i = b.add(i, one, &[])?;
    let onef = b.constant_scalar(1f32)?;
    let next_small = b.add(small, onef, &[])?;
    let t = b.tuple(&[next_i, big, next_small])?;
    let body = b.build(t)?;

    let mut m = Builder::new("passthrough");
    let big = m.parameter(0, Shape::new(F32, &[BIG]), "big")?;
    let zero = m.constant_scalar(0i32)?;
    let small = m.constant(Literal::from_vec(&[4], vec![0f32; 4])?)?;
    let init = m.tuple(&[zero, big, small])?;
    let w = m.while_loop(&condition, &body, init)?;
    let out = m.get_tuple_element(w, 2)?;
    m.build(out)
}

/// Bytes allocated while evaluating a `steps`-step loop (the computation and
/// its argument are built before counting starts).
fn bytes_for(steps: i32) -> usize {
    let comp = passthrough_loop(steps).expect("the loop builds");
    let big = Literal::from_vec(&[BIG], vec![0.5f32; BIG as usize]).expect("the argument");
    let before = ALLOCATED.load(Ordering::Relaxed);
    let out = oxla_interp::evaluate(&comp, &[&big]).expect("the loop runs");
    let after = ALLOCATED.load(Ordering::Relaxed);
    assert_eq!(out.to_vec::<f32>().ok(), Some(vec![steps as f32; 4]));
    after - before
}

#[test]
fn a_loop_does_not_copy_the_state_it_passes_through() {
    let big_bytes = BIG as usize * 4;
    let (short, long) = (bytes_for(250), bytes_for(500));
    // Copying `big` once per step would allocate 250 * 4 MiB = 1 GiB here.
    assert!(
        long < big_bytes,
        "500 steps allocated {long} bytes: the 4 MiB array was copied"
    );
    // Linear in the trip count: the extra 250 steps cost what the first did.
    let per_step = (long - short) / 250;
    assert!(
        long <= 2 * short + 4096 && short <= long,
        "250 steps: {short} bytes, 500 steps: {long} bytes ({per_step} per step)"
    );
    assert!(per_step < 4096, "{per_step} bytes per step");
}
