//! Tiled convolution kernels: stubs into the run-time routine
//! (`convlib.rs`). The kernel writes its descriptor into a stack slot,
//! loads the input, filter and output base pointers from the buffer table
//! (so `kcompile`'s table canonicalisation sees its buffers like any
//! other kernel's), and calls `oxla_jit_conv_f32` with its range of lines.

use cranelift_codegen::ir::{AbiParam, InstBuilder, StackSlotData, StackSlotKind, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITBuilder;
use cranelift_module::{Linkage, Module};
use oxla_ir::Result;

use crate::convlib::{self, ConvKernel};

use super::{Jit, flags, setup_error};

/// The run-time entry point.
const CONV_F32: &str = "oxla_jit_conv_f32";

/// Registers the run-time entry point on the builder.
pub(super) fn register_symbols(jb: &mut JITBuilder) {
    jb.symbol(CONV_F32, convlib::oxla_jit_conv_f32 as *const u8);
}

impl Jit {
    /// Compiles a tiled convolution kernel (a stub into `convlib.rs`).
    pub(crate) fn conv_kernel(&mut self, kernel: &ConvKernel) -> Result<usize> {
        self.begin();
        let ptr = self.module.target_config().pointer_type();
        let mut sig = self.module.make_signature();
        sig.params.push(AbiParam::new(ptr));
        for _ in 0..3 {
            sig.params.push(AbiParam::new(types::I64));
        }
        for _ in 0..3 {
            sig.params.push(AbiParam::new(ptr));
        }
        let id = self
            .module
            .declare_function(CONV_F32, Linkage::Import, &sig)
            .map_err(|e| setup_error(format!("declaring {CONV_F32}: {e}")))?;
        let words = kernel.words();
        {
            let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fbc);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let p = b.block_params(entry).to_vec();
            let (table, start, end) = (p[0], p[1], p[2]);
            let slot = b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (words.len().max(1) * 8) as u32,
                3,
            ));
            for (i, &w) in words.iter().enumerate() {
                let v = b.ins().iconst(types::I64, w);
                b.ins().stack_store(ptr, v, slot, (i * 8) as i32);
            }
            let addr = b.ins().stack_addr(ptr, slot, 0);
            let len = b.ins().iconst(types::I64, words.len() as i64);
            let mut args = vec![addr, len, start, end];
            for buf in [kernel.input, kernel.filter, kernel.out] {
                args.push(
                    b.ins()
                        .load(types::I64, flags(), table, (buf.index() * 8) as i32),
                );
            }
            let f = self.module.declare_func_in_func(id, b.func);
            b.ins().call(f, &args);
            b.ins().return_(&[]);
            b.seal_all_blocks();
            b.finalize(self.module.target_config());
        }
        self.finish()
    }
}
