//! The MLIR syntax tree, and the grammar every op shares: modules,
//! functions, regions and blocks, the generic op form, attributes and types.
//!
//! Reading builds a tree that says what the text says, with every node's
//! byte offset for errors; nothing is resolved yet (value names, callees,
//! types against values). Each op, whichever form it was written in, becomes
//! the same [`Operation`]: the pretty forms ([`super::pretty`]) fill it with
//! the attribute names the generic form uses, so the lowering reads one
//! shape of data.
//!
//! Invariants: nesting (regions, attributes, types, dense literals) is
//! capped at [`MAX_NESTING`], so no input recurses without bound; every
//! loop consumes input; memory is proportional to the text.

use std::collections::HashMap;

use oxla_ir::{ElementType, Result, Shape};

use super::cursor::Cursor;
use super::ops::{self, Lower};
use super::source::{Source, in_op};

/// The deepest nesting of regions, attributes, types and literals accepted
/// (counted in levels; a region is [`REGION_WEIGHT`] levels, so at most 16
/// regions nest: a debug build reads 64 levels within a 2 MiB stack).
pub(super) const MAX_NESTING: usize = 64;

/// What one region costs of [`MAX_NESTING`].
const REGION_WEIGHT: usize = 4;

/// A type and where it was written (`pos..end`).
#[derive(Debug, Clone)]
pub(super) struct TypeAt {
    pub(super) ty: Type,
    pub(super) pos: usize,
    pub(super) end: usize,
}

#[derive(Debug, Clone)]
pub(super) enum Type {
    /// A ranked tensor of an element type oxla has, or a tuple of such.
    Value(Shape),
    /// A builtin scalar type (`i64`, `f32`, `index`): the type of an integer
    /// or float attribute.
    Scalar(String),
    /// `(inputs) -> results`.
    Function(Vec<TypeAt>, Vec<TypeAt>),
    /// A type oxla cannot hold as a value, and why.
    Unsupported(String),
}

/// An attribute value and where it starts.
#[derive(Debug, Clone)]
pub(super) struct AttrAt {
    pub(super) attr: Attr,
    pub(super) pos: usize,
}

#[derive(Debug, Clone)]
pub(super) enum Attr {
    /// A key without a value (`{unit_attr}`) or `unit`.
    Unit,
    Bool(bool),
    /// An integer (its written type, `1 : i64`, only decides int or float).
    Int(i128),
    /// A float as written.
    Float(String),
    Str(String),
    /// `@name`.
    Symbol(String),
    /// A bare word where a pretty form writes an enum (`GT`, `DEFAULT`).
    Keyword(String),
    Type(TypeAt),
    Array(Vec<AttrAt>),
    Dict(Vec<NamedAttr>),
    /// `array<i64: 1, 2>`: the values.
    DenseArray(Vec<i128>),
    /// `dense<...>` and its type.
    Dense(DenseBody, Option<TypeAt>),
    /// `dense_resource<name>` and its type.
    DenseResource(String, Option<TypeAt>),
    /// `#dialect<...>` or `#dialect.mnemonic<...>`: the span inside the
    /// angle brackets, read when an op needs it.
    Dialect(usize, usize),
    /// `loc(...)`, `affine_map<...>` and other attributes oxla never
    /// interprets.
    Opaque,
}

/// The body of `dense<...>`.
#[derive(Debug, Clone)]
pub(super) enum DenseBody {
    /// `dense<>`.
    Empty,
    /// `dense<"0x...">`: the string and its position.
    Hex(String, usize),
    Elements(DenseElem),
}

/// An element or nested list of `dense<...>`; scalars are spans of text.
#[derive(Debug, Clone)]
pub(super) enum DenseElem {
    List(Vec<DenseElem>, usize),
    Scalar(usize, usize),
    /// `(re, im)`: a complex number, its position and the spans of its
    /// two parts.
    Complex(usize, (usize, usize), (usize, usize)),
}

/// `key = value` in an attribute dictionary.
#[derive(Debug, Clone)]
pub(super) struct NamedAttr {
    pub(super) key: String,
    pub(super) pos: usize,
    pub(super) value: AttrAt,
}

/// `%name` or `%name:3` on the left of `=`.
#[derive(Debug, Clone)]
pub(super) struct ResultDef {
    pub(super) name: String,
    pub(super) count: usize,
    pub(super) pos: usize,
}

/// A use of a value: `%name` or `%name#2`.
#[derive(Debug, Clone)]
pub(super) struct Use {
    pub(super) name: String,
    pub(super) index: usize,
    pub(super) pos: usize,
}

/// A block argument (or function argument): `%arg0: tensor<2xf32>`.
#[derive(Debug, Clone)]
pub(super) struct BlockArg {
    pub(super) name: String,
    pub(super) ty: TypeAt,
    pub(super) pos: usize,
    /// The `{...}` after a function argument.
    pub(super) attrs: Vec<NamedAttr>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Block {
    pub(super) args: Vec<BlockArg>,
    pub(super) ops: Vec<Operation>,
}

#[derive(Debug, Clone)]
pub(super) struct Region {
    pub(super) blocks: Vec<Block>,
    pub(super) pos: usize,
}

/// One op, in either form.
#[derive(Debug, Clone)]
pub(super) struct Operation {
    /// The full name (`stablehlo.add`, `func.call`, `func.return`).
    pub(super) name: String,
    /// Where the name is.
    pub(super) pos: usize,
    pub(super) results: Vec<ResultDef>,
    pub(super) operands: Vec<Use>,
    /// One per operand.
    pub(super) operand_types: Vec<TypeAt>,
    pub(super) result_types: Vec<TypeAt>,
    pub(super) attrs: Vec<NamedAttr>,
    pub(super) regions: Vec<Region>,
}

impl Operation {
    /// The number of values the op defines on the left of `=`.
    pub(super) fn result_count(&self) -> usize {
        self.results.iter().map(|r| r.count).sum()
    }
}

/// A function: `func.func` in either form.
#[derive(Debug, Clone)]
pub(super) struct Func {
    pub(super) name: String,
    pub(super) pos: usize,
    pub(super) public: bool,
    /// The entry block's arguments.
    pub(super) body: Region,
    pub(super) results: Vec<TypeAt>,
    pub(super) result_attrs: Vec<Vec<NamedAttr>>,
    pub(super) attrs: Vec<NamedAttr>,
}

/// A whole file.
#[derive(Debug, Clone)]
pub(super) struct Module {
    pub(super) name: Option<String>,
    pub(super) pos: usize,
    pub(super) attrs: Vec<NamedAttr>,
    pub(super) funcs: Vec<Func>,
    /// `{-# dialect_resources: { builtin: { name: "0x..." } } #-}`: each
    /// blob's hex string and position.
    pub(super) resources: HashMap<String, (String, usize)>,
}

/// The recursive-descent reader.
pub(super) struct Parser<'s, 'a> {
    pub(super) c: Cursor<'s, 'a>,
    attr_aliases: HashMap<String, AttrAt>,
    type_aliases: HashMap<String, TypeAt>,
    depth: usize,
}

/// Reads a whole file.
pub(super) fn parse_module(src: &Source<'_>) -> Result<Module> {
    let mut p = Parser {
        c: Cursor::new(src),
        attr_aliases: HashMap::new(),
        type_aliases: HashMap::new(),
        depth: 0,
    };
    p.module()
}

/// Maps an MLIR element type to oxla's, or says why it has none.
pub(super) fn element_type(name: &str) -> std::result::Result<ElementType, String> {
    Ok(match name {
        "i1" => ElementType::Pred,
        "i2" => ElementType::S2,
        "i4" => ElementType::S4,
        "i8" => ElementType::S8,
        "i16" => ElementType::S16,
        "i32" => ElementType::S32,
        "i64" => ElementType::S64,
        "ui1" => ElementType::U1,
        "ui2" => ElementType::U2,
        "ui4" => ElementType::U4,
        "ui8" => ElementType::U8,
        "ui16" => ElementType::U16,
        "ui32" => ElementType::U32,
        "ui64" => ElementType::U64,
        "f4E2M1FN" => ElementType::F4E2M1FN,
        "f8E3M4" => ElementType::F8E3M4,
        "f8E4M3" => ElementType::F8E4M3,
        "f8E4M3FN" => ElementType::F8E4M3FN,
        "f8E4M3FNUZ" => ElementType::F8E4M3FNUZ,
        "f8E4M3B11FNUZ" => ElementType::F8E4M3B11FNUZ,
        "f8E5M2" => ElementType::F8E5M2,
        "f8E5M2FNUZ" => ElementType::F8E5M2FNUZ,
        "f8E8M0FNU" => ElementType::F8E8M0FNU,
        "bf16" => ElementType::Bf16,
        "f16" => ElementType::F16,
        "f32" => ElementType::F32,
        "f64" => ElementType::F64,
        "complex<f32>" => ElementType::C64,
        "complex<f64>" => ElementType::C128,
        _ => {
            return Err(format!(
                "oxla has no element type `{name}` (it has i1..i64, ui1..ui64, the float8 \
                 kinds, f4E2M1FN, bf16, f16, f32, f64, complex<f32> and complex<f64>)"
            ));
        }
    })
}

/// Whether `word` names a builtin scalar type (`i32`, `ui8`, `f16`, `bf16`,
/// `f8E4M3FN`, `index`, `none`).
fn is_builtin_type(word: &str) -> bool {
    let int_width = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    match word {
        "index" | "none" | "bf16" | "tf32" => true,
        _ => {
            word.strip_prefix("ui").is_some_and(int_width)
                || word.strip_prefix("si").is_some_and(int_width)
                || word.strip_prefix('i').is_some_and(int_width)
                || word.strip_prefix('f').is_some_and(|r| {
                    r.bytes().next().is_some_and(|b| b.is_ascii_digit())
                        && r.bytes().all(|b| b.is_ascii_alphanumeric())
                })
        }
    }
}

impl<'s, 'a> Parser<'s, 'a> {
    /// One more level of nesting; a region counts as [`REGION_WEIGHT`]
    /// levels, as reading one takes several times the stack.
    fn enter(&mut self, pos: usize, what: &str) -> Result<()> {
        self.depth += if what == "regions" { REGION_WEIGHT } else { 1 };
        if self.depth > MAX_NESTING {
            return Err(self.c.err(
                pos,
                format!(
                    "{what} nested too deeply: at most {MAX_NESTING} levels of attributes, types and lists, a region counting {REGION_WEIGHT}"
                ),
                format!("at most {} nested regions and {MAX_NESTING} levels in all", MAX_NESTING / REGION_WEIGHT),
            ));
        }
        Ok(())
    }

    fn leave(&mut self, what: &str) {
        self.depth -= if what == "regions" { REGION_WEIGHT } else { 1 };
    }

    /// Skips a trailing `loc(...)`.
    pub(super) fn skip_loc(&mut self) -> Result<()> {
        if self.c.peek_bare() == "loc" {
            let save = self.c.pos;
            self.c.eat_keyword("loc");
            if self.c.peek_raw() == Some(b'(') {
                self.c.skip_balanced("location")?;
            } else {
                self.c.pos = save;
            }
        }
        Ok(())
    }

    // -- files and modules ---------------------------------------------------

    fn module(&mut self) -> Result<Module> {
        let mut module: Option<Module> = None;
        let mut resources = HashMap::new();
        let mut loose: Vec<Func> = Vec::new();
        let mut loose_pos = None;
        loop {
            if self.c.at_end() {
                break;
            }
            let pos = self.c.pos;
            if self.c.at("{-#") {
                self.file_metadata(&mut resources)?;
            } else if self.c.peek() == Some(b'#') {
                self.alias_definition()?;
            } else if self.c.peek() == Some(b'!') {
                self.type_alias_definition()?;
            } else if self.c.peek_bare() == "module" || self.c.at("\"builtin.module\"") {
                if let Some(m) = &module {
                    let _ = m;
                    return Err(self.c.err(
                        pos,
                        "a second module in one file",
                        "one `module` per file",
                    ));
                }
                module = Some(if self.c.eat_keyword("module") {
                    self.pretty_module(pos)?
                } else {
                    self.generic_module(pos)?
                });
            } else if self.c.peek_bare() == "func.func" || self.c.at("\"func.func\"") {
                loose_pos.get_or_insert(pos);
                loose.push(self.func()?);
            } else if self.c.peek_bare() == "HloModule" {
                return Err(self.c.err(
                    pos,
                    "this is HLO text, not StableHLO MLIR; read it with the HLO parser (`oxla_ir::parse_hlo_module`, or a `.hlo` file for the CLI)",
                    "`module @name { ... }` or `func.func @main(...)`",
                ));
            } else {
                return Err(self.c.err(
                    pos,
                    format!(
                        "expected a `module` or a `func.func`, found {}",
                        self.c.found()
                    ),
                    "`module @name { ... }` or `func.func @main(...)`",
                ));
            }
        }
        let mut module = match (module, loose_pos) {
            (Some(_), Some(p)) => {
                return Err(self.c.err(
                    p,
                    "a function outside the module",
                    "every `func.func` inside the one `module`",
                ));
            }
            (Some(m), None) => m,
            (None, pos) => Module {
                name: None,
                pos: pos.unwrap_or(0),
                attrs: Vec::new(),
                funcs: loose,
                resources: HashMap::new(),
            },
        };
        module.resources = resources;
        Ok(module)
    }

    /// `module @name attributes {...} { funcs }` after the keyword.
    fn pretty_module(&mut self, pos: usize) -> Result<Module> {
        let name = if self.c.peek() == Some(b'@') {
            Some(self.c.symbol("the module name")?.0)
        } else {
            None
        };
        let attrs = if self.c.eat_keyword("attributes") {
            self.dict()?
        } else {
            Vec::new()
        };
        self.c.expect("{", "opening the module body")?;
        let mut funcs = Vec::new();
        while !self.c.eat("}") {
            if self.c.at_end() {
                return Err(self.c.err(
                    self.c.pos,
                    "the module body is not closed",
                    "`}` closing the module",
                ));
            }
            funcs.push(self.func()?);
        }
        self.skip_loc()?;
        Ok(Module {
            name,
            pos,
            attrs,
            funcs,
            resources: HashMap::new(),
        })
    }

    /// `"builtin.module"() <{sym_name = ...}> ({ funcs }) {attrs} : () -> ()`.
    fn generic_module(&mut self, pos: usize) -> Result<Module> {
        let op = self.operation()?;
        let mut name = None;
        let mut attrs = Vec::new();
        for a in op.attrs {
            if a.key == "sym_name" {
                match a.value.attr {
                    Attr::Str(s) => name = Some(s),
                    _ => {
                        return Err(self.c.err(
                            a.value.pos,
                            "builtin.module: `sym_name` must be a string",
                            "sym_name = \"name\"",
                        ));
                    }
                }
            } else {
                attrs.push(a);
            }
        }
        let mut funcs = Vec::new();
        for region in op.regions {
            for block in region.blocks {
                for inner in block.ops {
                    funcs.push(self.func_from_generic(inner)?);
                }
            }
        }
        Ok(Module {
            name,
            pos,
            attrs,
            funcs,
            resources: HashMap::new(),
        })
    }

    /// `{-# dialect_resources: { builtin: { name: "0x..." } } #-}`.
    fn file_metadata(&mut self, resources: &mut HashMap<String, (String, usize)>) -> Result<()> {
        self.c.expect("{-#", "opening the file metadata")?;
        loop {
            if self.c.eat("#-}") {
                return Ok(());
            }
            let (section, spos) = self.resource_key("a metadata section")?;
            self.c.expect(":", "after the section name")?;
            if section != "dialect_resources" {
                // `external_resources` and others describe nothing oxla reads.
                let _ = spos;
                self.c.skip_balanced("file metadata")?;
            } else {
                self.c.expect("{", "opening the dialect resources")?;
                while !self.c.eat("}") {
                    let (dialect, _) = self.resource_key("a dialect name")?;
                    self.c.expect(":", "after the dialect name")?;
                    self.c.expect("{", "opening the dialect's resources")?;
                    while !self.c.eat("}") {
                        let (key, kpos) = self.resource_key("a resource name")?;
                        self.c.expect(":", "after the resource name")?;
                        let (blob, bpos) = self.c.string("the resource blob")?;
                        if dialect == "builtin" {
                            if resources.contains_key(&key) {
                                return Err(self.c.err(
                                    kpos,
                                    format!("the resource `{key}` is defined twice"),
                                    "one definition per resource",
                                ));
                            }
                            resources.insert(key, (blob, bpos));
                        }
                        if !self.c.eat(",") && !self.c.at("}") {
                            return Err(self.c.err(
                                self.c.pos,
                                format!("expected `,` or `}}`, found {}", self.c.found()),
                                "`,` or `}`",
                            ));
                        }
                    }
                    if !self.c.eat(",") && !self.c.at("}") {
                        return Err(self.c.err(
                            self.c.pos,
                            format!("expected `,` or `}}`, found {}", self.c.found()),
                            "`,` or `}`",
                        ));
                    }
                }
            }
            if !self.c.eat(",") && !self.c.at("#-}") {
                return Err(self.c.err(
                    self.c.pos,
                    format!("expected `,` or `#-}}`, found {}", self.c.found()),
                    "`,` or `#-}`",
                ));
            }
        }
    }

    /// A resource or section name: letters, digits, `_`, `.`, `$`, `-`, or a string.
    fn resource_key(&mut self, what: &str) -> Result<(String, usize)> {
        self.c.skip_ws();
        let pos = self.c.pos;
        if self.c.peek_raw() == Some(b'"') {
            return self.c.string(what);
        }
        while self
            .c
            .peek_raw()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$' | b'-'))
        {
            self.c.pos += 1;
        }
        if self.c.pos == pos {
            return Err(self.c.err(
                pos,
                format!("expected {what}, found {}", self.c.found()),
                what.to_string(),
            ));
        }
        Ok((self.c.text(pos, self.c.pos).to_string(), pos))
    }

    /// `#name = attribute`.
    fn alias_definition(&mut self) -> Result<()> {
        let pos = self.c.expect("#", "starting an attribute alias")?;
        let (name, _) = self.c.expect_bare("an attribute alias name")?;
        self.c.expect("=", "after the alias name")?;
        let value = self.attr()?;
        if self.attr_aliases.insert(name.to_string(), value).is_some() {
            return Err(self.c.err(
                pos,
                format!("the attribute alias `#{name}` is defined twice"),
                "one definition per alias",
            ));
        }
        Ok(())
    }

    /// `!name = type`.
    fn type_alias_definition(&mut self) -> Result<()> {
        let pos = self.c.expect("!", "starting a type alias")?;
        let (name, _) = self.c.expect_bare("a type alias name")?;
        self.c.expect("=", "after the alias name")?;
        let value = self.parse_type()?;
        if self.type_aliases.insert(name.to_string(), value).is_some() {
            return Err(self.c.err(
                pos,
                format!("the type alias `!{name}` is defined twice"),
                "one definition per alias",
            ));
        }
        Ok(())
    }

    // -- functions -------------------------------------------------------------

    /// A `func.func` in either form.
    fn func(&mut self) -> Result<Func> {
        self.c.skip_ws();
        if self.c.at("\"") {
            let op = self.operation()?;
            return self.func_from_generic(op);
        }
        let pos = self.c.expect_keyword("func.func", "starting a function")?;
        let mut public = true;
        if let w @ ("public" | "private" | "nested") = self.c.peek_bare() {
            public = w == "public";
            self.c.eat_keyword(w);
        }
        let (name, _) = self.c.symbol("the function name")?;
        self.c.expect("(", "opening the function's arguments")?;
        let mut args = Vec::new();
        if !self.c.eat(")") {
            loop {
                let (arg_name, apos) = self.c.sigil_name(b'%', "an argument name (`%arg0`)")?;
                self.c.expect(":", "after the argument name")?;
                let ty = self.parse_type()?;
                let attrs = if self.c.at("{") {
                    self.dict()?
                } else {
                    Vec::new()
                };
                self.skip_loc()?;
                args.push(BlockArg {
                    name: arg_name.to_string(),
                    ty,
                    pos: apos,
                    attrs,
                });
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",", "or `)` after an argument")?;
            }
        }
        let mut results = Vec::new();
        let mut result_attrs = Vec::new();
        if self.c.eat("->") {
            if self.c.eat("(") {
                if !self.c.eat(")") {
                    loop {
                        results.push(self.parse_type()?);
                        result_attrs.push(if self.c.at("{") {
                            self.dict()?
                        } else {
                            Vec::new()
                        });
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",", "or `)` after a result type")?;
                    }
                }
            } else {
                results.push(self.parse_type()?);
                result_attrs.push(Vec::new());
            }
        }
        let attrs = if self.c.eat_keyword("attributes") {
            self.dict()?
        } else {
            Vec::new()
        };
        if !self.c.at("{") {
            return Err(self.c.err(
                self.c.pos,
                format!("the function @{name} has no body"),
                "`{` opening the function body (declarations of external functions are not supported)",
            ));
        }
        let body = self.region(Some(args))?;
        self.skip_loc()?;
        Ok(Func {
            name,
            pos,
            public,
            body,
            results,
            result_attrs,
            attrs,
        })
    }

    /// A function written as `"func.func"() <{...}> ({...}) : () -> ()`.
    fn func_from_generic(&mut self, op: Operation) -> Result<Func> {
        if op.name != "func.func" {
            return Err(self.c.err(
                op.pos,
                format!("expected a `func.func` in the module, found `{}`", op.name),
                "only functions at the top of a module",
            ));
        }
        let mut name = None;
        let mut public = true;
        let mut fn_type = None;
        let mut arg_attrs: Vec<Vec<NamedAttr>> = Vec::new();
        let mut result_attrs = Vec::new();
        let mut attrs = Vec::new();
        let dicts = |a: AttrAt, what: &str, c: &Cursor| -> Result<Vec<Vec<NamedAttr>>> {
            let bad = || {
                c.err(
                    a.pos,
                    format!("func.func: `{what}` must be a list of dictionaries"),
                    "[{...}, ...]",
                )
            };
            match a.attr {
                Attr::Array(items) => items
                    .into_iter()
                    .map(|i| match i.attr {
                        Attr::Dict(d) => Ok(d),
                        _ => Err(bad()),
                    })
                    .collect(),
                _ => Err(bad()),
            }
        };
        for a in op.attrs {
            match a.key.as_str() {
                "sym_name" => match a.value.attr {
                    Attr::Str(s) => name = Some(s),
                    _ => {
                        return Err(self.c.err(
                            a.value.pos,
                            "func.func: `sym_name` must be a string",
                            "sym_name = \"main\"",
                        ));
                    }
                },
                "sym_visibility" => match &a.value.attr {
                    Attr::Str(s) => public = s == "public",
                    _ => {
                        return Err(self.c.err(
                            a.value.pos,
                            "func.func: `sym_visibility` must be a string",
                            "sym_visibility = \"private\"",
                        ));
                    }
                },
                "function_type" => match a.value.attr {
                    Attr::Type(TypeAt {
                        ty: Type::Function(ins, outs),
                        ..
                    }) => fn_type = Some((ins, outs)),
                    _ => {
                        return Err(self.c.err(
                            a.value.pos,
                            "func.func: `function_type` must be a function type",
                            "function_type = (...) -> ...",
                        ));
                    }
                },
                "arg_attrs" => arg_attrs = dicts(a.value, "arg_attrs", &self.c)?,
                "res_attrs" => result_attrs = dicts(a.value, "res_attrs", &self.c)?,
                _ => attrs.push(a),
            }
        }
        let Some(name) = name else {
            return Err(self.c.err(
                op.pos,
                "func.func: the function has no `sym_name`",
                "sym_name = \"main\"",
            ));
        };
        let Some((ins, outs)) = fn_type else {
            return Err(self.c.err(
                op.pos,
                format!("func.func: @{name} has no `function_type`"),
                "function_type = (...) -> ...",
            ));
        };
        let mut regions = op.regions;
        if regions.len() != 1 {
            return Err(self.c.err(
                op.pos,
                format!("func.func: @{name} must have one body region"),
                "({ ^bb0(...): ... })",
            ));
        }
        let mut body = regions.remove(0);
        let Some(entry) = body.blocks.first_mut() else {
            return Err(self.c.err(
                body.pos,
                format!("func.func: @{name} has an empty body"),
                "a block with a return",
            ));
        };
        if entry.args.len() != ins.len() {
            return Err(self.c.err(
                body.pos,
                format!(
                    "func.func: @{name} declares {} argument(s) but its block has {}",
                    ins.len(),
                    entry.args.len()
                ),
                "one block argument per function argument",
            ));
        }
        for (k, (arg, ty)) in entry.args.iter_mut().zip(ins).enumerate() {
            arg.ty = ty;
            arg.attrs = arg_attrs.get(k).cloned().unwrap_or_default();
        }
        if result_attrs.len() < outs.len() {
            result_attrs.resize(outs.len(), Vec::new());
        }
        Ok(Func {
            name,
            pos: op.pos,
            public,
            body,
            results: outs,
            result_attrs,
            attrs,
        })
    }

    // -- regions and ops -------------------------------------------------------

    /// `{ ops }` or `{ ^bb0(args): ops ^bb1: ... }`. `entry_args` are the
    /// entry block's arguments when the syntax gives them outside the region
    /// (function arguments, a pretty reducer's header).
    pub(super) fn region(&mut self, entry_args: Option<Vec<BlockArg>>) -> Result<Region> {
        let pos = self.c.expect("{", "opening a region")?;
        self.enter(pos, "regions")?;
        let mut blocks: Vec<Block> = Vec::new();
        let mut current = Block {
            args: entry_args.unwrap_or_default(),
            ops: Vec::new(),
        };
        let mut labelled = false;
        loop {
            if self.c.eat("}") {
                break;
            }
            if self.c.at_end() {
                return Err(self
                    .c
                    .err(pos, "the region is not closed", "`}` closing the region"));
            }
            if self.c.peek() == Some(b'^') {
                let (_, lpos) = self.c.sigil_name(b'^', "a block label")?;
                if !current.ops.is_empty() || labelled {
                    blocks.push(std::mem::take(&mut current));
                } else if !current.args.is_empty() {
                    return Err(self.c.err(
                        lpos,
                        "a block label after arguments given outside the region",
                        "the region's operations",
                    ));
                }
                labelled = true;
                if self.c.eat("(") && !self.c.eat(")") {
                    loop {
                        let (name, apos) = self.c.sigil_name(b'%', "a block argument (`%arg0`)")?;
                        self.c.expect(":", "after the block argument")?;
                        let ty = self.parse_type()?;
                        self.skip_loc()?;
                        current.args.push(BlockArg {
                            name: name.to_string(),
                            ty,
                            pos: apos,
                            attrs: Vec::new(),
                        });
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",", "or `)` after a block argument")?;
                    }
                }
                self.c.expect(":", "after the block label")?;
                continue;
            }
            current.ops.push(self.operation()?);
        }
        if !current.ops.is_empty() || labelled || blocks.is_empty() {
            blocks.push(current);
        }
        self.leave("regions");
        Ok(Region { blocks, pos })
    }

    /// One op in either form, with its results and trailing location.
    pub(super) fn operation(&mut self) -> Result<Operation> {
        self.c.skip_ws();
        let mut results = Vec::new();
        if self.c.peek() == Some(b'%') {
            loop {
                let (name, pos) = self.c.sigil_name(b'%', "a result name")?;
                let mut count = 1;
                if self.c.peek_raw() == Some(b':') {
                    self.c.pos += 1;
                    let n = self.c.raw_decimal("a result count")?;
                    if !(1..=1 << 16).contains(&n) {
                        return Err(self.c.err(
                            pos,
                            format!("a result count of {n}"),
                            "between 1 and 65536 results",
                        ));
                    }
                    count = n as usize;
                }
                results.push(ResultDef {
                    name: name.to_string(),
                    count,
                    pos,
                });
                if !self.c.eat(",") {
                    break;
                }
            }
            self.c.expect("=", "after the result names")?;
        }
        self.c.skip_ws();
        let pos = self.c.pos;
        let (name, generic) = if self.c.peek_raw() == Some(b'"') {
            (self.c.string("an op name")?.0, true)
        } else {
            let (w, _) = self.c.expect_bare("an op name (`stablehlo.add`)")?;
            (w.to_string(), false)
        };
        let name = match name.as_str() {
            "return" => "func.return".to_string(),
            "call" => "func.call".to_string(),
            _ => name,
        };
        let mut op = Operation {
            name,
            pos,
            results,
            operands: Vec::new(),
            operand_types: Vec::new(),
            result_types: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
        };
        if generic && matches!(op.name.as_str(), "func.func" | "builtin.module") {
            self.generic_body(&mut op)?;
            self.skip_loc()?;
            return Ok(op);
        }
        let def = match ops::lookup(&op.name) {
            Some(def) => def,
            None => return Err(unknown_op(&self.c, &op.name, pos)),
        };
        if let Lower::NotYet(why) = def.lower {
            return Err(self.c.err(
                pos,
                format!("{} is not supported yet: {why}", op.name),
                "an op oxla's IR has (see docs/stablehlo.md)",
            ));
        }
        let parsed = if generic {
            self.generic_body(&mut op)
        } else {
            super::pretty::parse(self, def.syntax, &mut op)
        };
        parsed.map_err(|e| in_op(e, &op.name))?;
        self.skip_loc()?;
        if op.result_count() != op.result_types.len() {
            let at = op.results.first().map_or(pos, |r| r.pos);
            return Err(self.c.err(
                at,
                format!(
                    "{}: {} result(s) are named but the op's type gives {}",
                    op.name,
                    op.result_count(),
                    op.result_types.len()
                ),
                format!("{} result name(s)", op.result_types.len()),
            ));
        }
        Ok(op)
    }

    /// `(%a, %b) <{props}> ({regions}) {attrs} : (types) -> types` after the name.
    fn generic_body(&mut self, op: &mut Operation) -> Result<()> {
        self.c.expect("(", "opening the operands")?;
        op.operands = self.uses_until(")")?;
        if self.c.at("[") {
            return Err(self.c.err(
                self.c.pos,
                format!("{}: successor blocks (branches) are not supported", op.name),
                "an op without successors",
            ));
        }
        if self.c.eat("<") {
            op.attrs.extend(self.dict()?);
            self.c.expect(">", "closing the properties")?;
        }
        if self.c.eat("(") {
            loop {
                op.regions.push(self.region(None)?);
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",", "or `)` after a region")?;
            }
        }
        if self.c.at("{") {
            op.attrs.extend(self.dict()?);
        }
        self.c.expect(":", "before the op's type")?;
        let ty = self.parse_type()?;
        self.assign_function(op, ty)
    }

    /// Sets `op`'s operand and result types from its function type `t`.
    pub(super) fn assign_function(&self, op: &mut Operation, t: TypeAt) -> Result<()> {
        let Type::Function(ins, outs) = t.ty else {
            return Err(self.c.err(
                t.pos,
                "expected the op's function type",
                "`(operand types) -> result types`",
            ));
        };
        if ins.len() != op.operands.len() {
            return Err(self.c.err(
                t.pos,
                format!(
                    "{} operand(s) but the type lists {}",
                    op.operands.len(),
                    ins.len()
                ),
                format!("{} operand type(s)", op.operands.len()),
            ));
        }
        op.operand_types = ins;
        op.result_types = outs;
        Ok(())
    }

    /// Value uses separated by commas, up to and including `close`.
    pub(super) fn uses_until(&mut self, close: &str) -> Result<Vec<Use>> {
        let mut out = Vec::new();
        if self.c.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.value_use()?);
            if self.c.eat(close) {
                return Ok(out);
            }
            self.c
                .expect(",", &format!("or `{close}` after an operand"))?;
        }
    }

    /// `%name` or `%name#2`.
    pub(super) fn value_use(&mut self) -> Result<Use> {
        let (name, pos) = self.c.sigil_name(b'%', "an operand (`%name`)")?;
        let mut index = 0;
        if self.c.peek_raw() == Some(b'#') {
            self.c.pos += 1;
            let n = self.c.raw_decimal("a result index")?;
            index = usize::try_from(n).unwrap_or(usize::MAX);
        }
        Ok(Use {
            name: name.to_string(),
            index,
            pos,
        })
    }

    // -- attributes ------------------------------------------------------------

    /// `{key = value, flag, ...}`.
    pub(super) fn dict(&mut self) -> Result<Vec<NamedAttr>> {
        let pos = self.c.expect("{", "opening an attribute dictionary")?;
        self.enter(pos, "attributes")?;
        let mut out: Vec<NamedAttr> = Vec::new();
        if !self.c.eat("}") {
            loop {
                self.c.skip_ws();
                let kpos = self.c.pos;
                let key = if self.c.peek_raw() == Some(b'"') {
                    self.c.string("an attribute name")?.0
                } else {
                    self.c.expect_bare("an attribute name")?.0.to_string()
                };
                let value = if self.c.eat("=") {
                    self.attr()?
                } else {
                    AttrAt {
                        attr: Attr::Unit,
                        pos: kpos,
                    }
                };
                if out.iter().any(|a| a.key == key) {
                    return Err(self.c.err(
                        kpos,
                        format!("the attribute `{key}` is given twice"),
                        "each attribute once",
                    ));
                }
                out.push(NamedAttr {
                    key,
                    pos: kpos,
                    value,
                });
                if self.c.eat("}") {
                    break;
                }
                self.c.expect(",", "or `}` after an attribute")?;
            }
        }
        self.leave("");
        Ok(out)
    }

    /// Any attribute value.
    pub(super) fn attr(&mut self) -> Result<AttrAt> {
        self.c.skip_ws();
        let pos = self.c.pos;
        self.enter(pos, "attributes")?;
        let attr = self.attr_inner(pos)?;
        self.leave("");
        Ok(AttrAt { attr, pos })
    }

    fn attr_inner(&mut self, pos: usize) -> Result<Attr> {
        let Some(b) = self.c.peek() else {
            return Err(self.c.err(
                pos,
                "expected an attribute, found the end of the input",
                "an attribute value",
            ));
        };
        match b {
            b'"' => return Ok(Attr::Str(self.c.string("a string")?.0)),
            b'@' => {
                let (name, _) = self.c.symbol("a symbol")?;
                return Ok(Attr::Symbol(name));
            }
            b'[' => {
                self.c.pos += 1;
                let mut items = Vec::new();
                if !self.c.eat("]") {
                    loop {
                        items.push(self.attr()?);
                        if self.c.eat("]") {
                            break;
                        }
                        self.c.expect(",", "or `]` in an array")?;
                    }
                }
                return Ok(Attr::Array(items));
            }
            b'{' => return Ok(Attr::Dict(self.dict()?)),
            b'#' => return self.hash_attr(),
            b'(' | b'!' => return Ok(Attr::Type(self.parse_type()?)),
            _ => {}
        }
        if let Some((s, e, float)) = self.c.number() {
            let text = self.c.text(s, e);
            let ty = self.optional_attr_type()?;
            if float {
                return Ok(Attr::Float(text.to_string()));
            }
            let v = super::cursor::parse_int(text).ok_or_else(|| {
                self.c.err(
                    s,
                    format!("the integer {text} does not fit in 128 bits"),
                    "a smaller integer",
                )
            })?;
            // An integer written for a float type is a float.
            if ty.as_ref().is_some_and(
                |t| matches!(&t.ty, Type::Scalar(n) if n.starts_with('f') || n == "bf16"),
            ) {
                return Ok(Attr::Float(text.to_string()));
            }
            return Ok(Attr::Int(v));
        }
        let word = self.c.peek_bare();
        match word {
            "true" | "false" => {
                self.c.eat_keyword(word);
                self.optional_attr_type()?;
                Ok(Attr::Bool(word == "true"))
            }
            "unit" => {
                self.c.eat_keyword(word);
                Ok(Attr::Unit)
            }
            "dense" if self.after_word_is(word, b'<') => self.dense(),
            "dense_resource" if self.after_word_is(word, b'<') => {
                self.c.eat_keyword(word);
                self.c.expect("<", "after dense_resource")?;
                let (name, _) = self.resource_key("a resource name")?;
                self.c.expect(">", "closing dense_resource")?;
                let ty = self.optional_attr_type()?;
                Ok(Attr::DenseResource(name, ty))
            }
            "array" if self.after_word_is(word, b'<') => self.dense_array(),
            "loc" if self.after_word_is(word, b'(') => {
                self.c.eat_keyword(word);
                self.c.skip_balanced("a location")?;
                Ok(Attr::Opaque)
            }
            "tensor" | "tuple" | "complex" | "vector" | "memref" => {
                Ok(Attr::Type(self.parse_type()?))
            }
            w if is_builtin_type(w) => Ok(Attr::Type(self.parse_type()?)),
            "" => Err(self.c.err(
                pos,
                format!("expected an attribute, found {}", self.c.found()),
                "an attribute value",
            )),
            w => {
                self.c.eat_keyword(w);
                if self.c.peek_raw() == Some(b'<') {
                    self.c.skip_balanced("an attribute")?;
                    return Ok(Attr::Opaque);
                }
                Ok(Attr::Keyword(w.to_string()))
            }
        }
    }

    /// Whether `word` (at the cursor) is directly followed by `next`.
    fn after_word_is(&mut self, word: &str, next: u8) -> bool {
        self.c.skip_ws();
        self.c
            .text(self.c.pos + word.len(), self.c.pos + word.len() + 1)
            .as_bytes()
            .first()
            == Some(&next)
    }

    /// `: type` after a literal attribute, if present.
    fn optional_attr_type(&mut self) -> Result<Option<TypeAt>> {
        // `: ` followed by a type; a `:` that starts something else (the
        // op's own type) is never reached here, as pretty forms read their
        // literals without types.
        if self.c.at(":") && !self.c.at("::") {
            self.c.eat(":");
            return Ok(Some(self.parse_type()?));
        }
        Ok(None)
    }

    /// `#alias` or `#dialect<...>`.
    fn hash_attr(&mut self) -> Result<Attr> {
        let pos = self.c.expect("#", "starting an attribute")?;
        let mut i = self.c.pos;
        let bytes = self.c.src.text.as_bytes();
        while i < bytes.len() && (super::cursor::is_bare_char(bytes[i]) || bytes[i] == b'-') {
            i += 1;
        }
        let name = self.c.text(self.c.pos, i).to_string();
        if name.is_empty() {
            return Err(self.c.err(
                pos,
                "expected an attribute name after `#`",
                "`#alias` or `#dialect<...>`",
            ));
        }
        self.c.pos = i;
        if self.c.peek_raw() == Some(b'<') {
            let (start, end) = self.c.skip_balanced("a dialect attribute")?;
            return Ok(Attr::Dialect(start, end));
        }
        match self.attr_aliases.get(&name) {
            Some(a) => Ok(a.attr.clone()),
            None => Err(self.c.err(
                pos,
                format!("the attribute alias `#{name}` is not defined"),
                format!("a definition `#{name} = ...` before its use"),
            )),
        }
    }

    /// `array<i64: 1, 2>` or `array<i64>`.
    fn dense_array(&mut self) -> Result<Attr> {
        self.c.eat_keyword("array");
        self.c.expect("<", "after array")?;
        let (elem, _) = self.c.expect_bare("the array's element type")?;
        let mut values = Vec::new();
        if self.c.eat(":") {
            loop {
                self.c.skip_ws();
                let vpos = self.c.pos;
                let v = match self.c.peek_bare() {
                    "true" => {
                        self.c.eat_keyword("true");
                        1
                    }
                    "false" => {
                        self.c.eat_keyword("false");
                        0
                    }
                    _ => match self.c.number() {
                        Some((s, e, false)) => super::cursor::parse_int(self.c.text(s, e))
                            .ok_or_else(|| {
                                self.c.err(
                                    vpos,
                                    "an array element does not fit in 128 bits",
                                    "a smaller integer",
                                )
                            })?,
                        _ => {
                            return Err(self.c.err(
                                vpos,
                                format!(
                                    "expected an integer in array<{elem}: ...>, found {}",
                                    self.c.found()
                                ),
                                "integers (oxla reads integer and boolean arrays)",
                            ));
                        }
                    },
                };
                values.push(v);
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        self.c.expect(">", "closing the array")?;
        Ok(Attr::DenseArray(values))
    }

    /// `dense<...>` with its optional `: type`.
    fn dense(&mut self) -> Result<Attr> {
        self.c.eat_keyword("dense");
        self.c.expect("<", "after dense")?;
        let body = if self.c.eat(">") {
            DenseBody::Empty
        } else {
            let body = if self.c.peek() == Some(b'"') {
                let (s, p) = self.c.string("a hex blob")?;
                DenseBody::Hex(s, p)
            } else {
                DenseBody::Elements(self.dense_elem()?)
            };
            self.c.expect(">", "closing the dense literal")?;
            body
        };
        let ty = self.optional_attr_type()?;
        Ok(Attr::Dense(body, ty))
    }

    fn dense_elem(&mut self) -> Result<DenseElem> {
        self.c.skip_ws();
        let pos = self.c.pos;
        if self.c.eat("[") {
            self.enter(pos, "dense literal lists")?;
            let mut items = Vec::new();
            if !self.c.eat("]") {
                loop {
                    items.push(self.dense_elem()?);
                    if self.c.eat("]") {
                        break;
                    }
                    self.c.expect(",", "or `]` in a dense literal")?;
                }
            }
            self.leave("");
            return Ok(DenseElem::List(items, pos));
        }
        if self.c.eat("(") {
            let part = |this: &mut Self| -> Result<(usize, usize)> {
                this.c.skip_ws();
                match this.c.number() {
                    Some((s, e, _)) => Ok((s, e)),
                    None => Err(this.c.err(
                        this.c.pos,
                        format!("expected a number, found {}", this.c.found()),
                        "`(re, im)` with two numbers",
                    )),
                }
            };
            let re = part(self)?;
            self.c.expect(",", "between a complex number's parts")?;
            let im = part(self)?;
            self.c.expect(")", "closing a complex number")?;
            return Ok(DenseElem::Complex(pos, re, im));
        }
        if let Some((s, e, _)) = self.c.number() {
            return Ok(DenseElem::Scalar(s, e));
        }
        let w = self.c.peek_bare();
        if matches!(w, "true" | "false") {
            self.c.eat_keyword(w);
            return Ok(DenseElem::Scalar(pos, pos + w.len()));
        }
        Err(self.c.err(
            pos,
            format!(
                "expected a value in a dense literal, found {}",
                self.c.found()
            ),
            "a number, `true`, `false`, or a `[...]` list",
        ))
    }

    // -- types -----------------------------------------------------------------

    /// Any type: `tensor<2x3xf32>`, `tuple<...>`, `(a, b) -> c`, `i64`, `!alias`.
    pub(super) fn parse_type(&mut self) -> Result<TypeAt> {
        self.c.skip_ws();
        let pos = self.c.pos;
        self.enter(pos, "types")?;
        let ty = self.type_inner(pos)?;
        self.leave("");
        Ok(TypeAt {
            ty,
            pos,
            end: self.c.pos,
        })
    }

    fn type_inner(&mut self, pos: usize) -> Result<Type> {
        if self.c.eat("(") {
            let mut ins = Vec::new();
            if !self.c.eat(")") {
                loop {
                    ins.push(self.parse_type()?);
                    if self.c.eat(")") {
                        break;
                    }
                    self.c.expect(",", "or `)` in a type list")?;
                }
            }
            self.c.expect("->", "in a function type")?;
            let mut outs = Vec::new();
            if self.c.eat("(") {
                if !self.c.eat(")") {
                    loop {
                        outs.push(self.parse_type()?);
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",", "or `)` in a type list")?;
                    }
                }
            } else {
                outs.push(self.parse_type()?);
            }
            return Ok(Type::Function(ins, outs));
        }
        if self.c.eat("!") {
            let start = self.c.pos;
            let bytes = self.c.src.text.as_bytes();
            let mut i = start;
            while i < bytes.len() && (super::cursor::is_bare_char(bytes[i]) || bytes[i] == b'-') {
                i += 1;
            }
            let name = self.c.text(start, i).to_string();
            self.c.pos = i;
            if name.is_empty() {
                return Err(self.c.err(
                    pos,
                    "expected a type name after `!`",
                    "`!dialect.type` or `!alias`",
                ));
            }
            if name == "stablehlo.token" || name == "mhlo.token" {
                return Ok(Type::Value(Shape::token()));
            }
            if self.c.peek_raw() == Some(b'<') {
                self.c.skip_balanced("a dialect type")?;
            } else if let Some(t) = self.type_aliases.get(&name) {
                return Ok(t.ty.clone());
            }
            return Ok(Type::Unsupported(format!("oxla has no type `!{name}`")));
        }
        let (word, wpos) = self.c.expect_bare("a type")?;
        match word {
            "tensor" => self.tensor_type(pos),
            "tuple" => {
                self.c.expect("<", "after tuple")?;
                let mut parts = Vec::new();
                let mut unsupported = None;
                if !self.c.eat(">") {
                    loop {
                        let t = self.parse_type()?;
                        match t.ty {
                            Type::Value(s) => parts.push(s),
                            Type::Unsupported(why) => {
                                unsupported.get_or_insert(why);
                            }
                            Type::Scalar(_) | Type::Function(..) => {
                                unsupported.get_or_insert(
                                    "a tuple element must be a tensor or a tuple".to_string(),
                                );
                            }
                        }
                        if self.c.eat(">") {
                            break;
                        }
                        self.c.expect(",", "or `>` in a tuple type")?;
                    }
                }
                Ok(match unsupported {
                    Some(why) => Type::Unsupported(why),
                    None => Type::Value(Shape::tuple(parts)),
                })
            }
            "complex" if self.c.peek_raw() == Some(b'<') => {
                // `complex<f32>`: a scalar type named by its spelling.
                self.c.expect("<", "after complex")?;
                let part = self.parse_type()?;
                self.c.expect(">", "closing complex<...>")?;
                Ok(match part.ty {
                    Type::Scalar(p) if p == "f32" || p == "f64" => {
                        Type::Scalar(format!("complex<{p}>"))
                    }
                    Type::Scalar(p) => Type::Unsupported(format!(
                        "oxla has no type `complex<{p}>` (complex<f32> and complex<f64> only)"
                    )),
                    Type::Unsupported(why) => Type::Unsupported(why),
                    Type::Value(_) | Type::Function(..) => {
                        Type::Unsupported("a complex type's parts must be f32 or f64".to_string())
                    }
                })
            }
            "complex" | "vector" | "memref" => {
                if self.c.peek_raw() == Some(b'<') {
                    self.c.skip_balanced("a type")?;
                }
                Ok(Type::Unsupported(format!("oxla has no `{word}` types")))
            }
            w if is_builtin_type(w) => Ok(Type::Scalar(w.to_string())),
            w => Err(self.c.err(
                wpos,
                format!("expected a type, found `{w}`"),
                "a type such as `tensor<2x3xf32>`",
            )),
        }
    }

    /// The rest of `tensor<2x3xf32>` after the keyword.
    fn tensor_type(&mut self, pos: usize) -> Result<Type> {
        self.c.expect("<", "after tensor")?;
        let body_start = self.c.pos;
        self.c.skip_ws();
        let mut dims = Vec::new();
        let mut unsupported: Option<String> = None;
        loop {
            match self.c.peek_raw() {
                Some(b'0'..=b'9') => {
                    dims.push(self.c.raw_decimal("a dimension size")?);
                    if dims.len() > oxla_ir::shape::MAX_RANK {
                        return Err(self.c.err(
                            pos,
                            format!(
                                "a tensor type of more than {} dimensions",
                                oxla_ir::shape::MAX_RANK
                            ),
                            format!("at most {} dimensions", oxla_ir::shape::MAX_RANK),
                        ));
                    }
                }
                Some(b'?') => {
                    self.c.pos += 1;
                    unsupported.get_or_insert(
                        "dynamic dimensions (`?`) are not supported; oxla needs static shapes"
                            .into(),
                    );
                }
                Some(b'*') => {
                    self.c.pos += 1;
                    unsupported.get_or_insert(
                        "unranked tensors (`*`) are not supported; oxla needs static shapes".into(),
                    );
                }
                _ => break,
            }
            if self.c.peek_raw() != Some(b'x') {
                return Err(self.c.err(
                    self.c.pos,
                    format!("expected `x` after a dimension, found {}", self.c.found()),
                    "`x` between dimensions (`2x3xf32`)",
                ));
            }
            self.c.pos += 1;
        }
        let elem = self.parse_type()?;
        let element = match &elem.ty {
            Type::Scalar(name) => match element_type(name) {
                Ok(t) => Some(t),
                Err(why) => {
                    unsupported.get_or_insert(why);
                    None
                }
            },
            Type::Unsupported(why) => {
                unsupported.get_or_insert(why.clone());
                None
            }
            Type::Value(_) | Type::Function(..) => {
                return Err(self.c.err(
                    elem.pos,
                    "a tensor's element type must be a scalar type",
                    "`f32`, `i32`, `i1`, ...",
                ));
            }
        };
        if self.c.eat(",") {
            // An encoding: bounds of a bounded-dynamic tensor, sparsity, ...
            self.attr()?;
            unsupported
                .get_or_insert("tensor encodings (bounds, sparsity) are not supported".into());
        }
        self.c.expect(">", "closing the tensor type")?;
        if let Some(why) = unsupported {
            return Ok(Type::Unsupported(why));
        }
        let Some(element) = element else {
            return Err(self.c.err(
                body_start,
                "a tensor type without an element type",
                "`tensor<2x3xf32>`",
            ));
        };
        let shape = Shape::new(element, &dims);
        shape.validate().map_err(|e| {
            self.c.err(
                pos,
                format!("invalid tensor type: {e}"),
                "non-negative sizes, at most 2^40 elements",
            )
        })?;
        Ok(Type::Value(shape))
    }
}

/// The error for an op name oxla does not know at all.
fn unknown_op(c: &Cursor<'_, '_>, name: &str, pos: usize) -> oxla_ir::Error {
    let hint = if name.starts_with("mhlo.") {
        "; oxla reads StableHLO, not MHLO (`jax.jit(f).lower(x).as_text()` prints StableHLO)"
    } else {
        ""
    };
    c.err(
        pos,
        format!("unknown op `{name}`{hint}"),
        "a StableHLO, CHLO or func op (see docs/stablehlo.md)",
    )
}

/// The `key = value, ...` parameters inside a dialect attribute's angle
/// brackets (`#stablehlo.dot<lhs_contracting_dimensions = [1], ...>`).
pub(super) fn parse_params(src: &Source<'_>, start: usize, end: usize) -> Result<Vec<NamedAttr>> {
    let mut p = Parser {
        c: Cursor::new(src).sub(start, end),
        attr_aliases: HashMap::new(),
        type_aliases: HashMap::new(),
        depth: 0,
    };
    let mut out = Vec::new();
    while !p.c.at_end() {
        let (key, pos) = p.c.expect_bare("a parameter name")?;
        p.c.expect("=", "after the parameter name")?;
        let value = p.attr()?;
        out.push(NamedAttr {
            key: key.to_string(),
            pos,
            value,
        });
        if !p.c.eat(",") && !p.c.at_end() {
            return Err(p.c.err(
                p.c.pos,
                format!("expected `,` or `>`, found {}", p.c.found()),
                "`,` between parameters",
            ));
        }
    }
    Ok(out)
}
