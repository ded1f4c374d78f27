//! Literals: dense arrays of values (row-major) or tuples of literals.
//!
//! A [`Literal`] owns its data as one typed vector ([`ArrayData`]); typed
//! access goes through [`NativeType`], so asking for the wrong Rust type is an
//! [`Error::LiteralType`], not a panic. Literals print in XLA's literal
//! notation: `f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}`.
//!
//! A literal may also be *elided* ([`Literal::elided`]): XLA prints large
//! constants as `constant({...})`, which keeps their shape and drops their
//! values. Such a literal has a shape and no data; it prints back as `{...}`,
//! verifies, and refuses every request for its values, so a computation
//! holding one can be checked but never run
//! ([`crate::Computation::check_values_known`]).

use std::fmt;
use std::sync::Weak;

use crate::{ElementType, Error, NativeType, Result, Shape};

pub(crate) mod text;

#[doc(hidden)]
#[macro_export]
macro_rules! __define_array_data {
    ({} $($variant:ident, $name:literal, $rust:ty, $bytes:literal, $bits:literal, $kind:ident;)*) => {
        /// The values of an array, one variant per element type (generated
        /// from the element type table).
        #[derive(Debug, Clone, PartialEq)]
        #[allow(missing_docs)]
        pub enum ArrayData {
            $($variant(Vec<$rust>),)*
        }

        impl ArrayData {
            /// The element type of the values.
            pub fn element_type(&self) -> ElementType {
                match self {
                    $(ArrayData::$variant(_) => ElementType::$variant,)*
                }
            }

            /// `n` zeros (`false` for `pred`) of `element_type`; `None` for
            /// `Tuple`, and when the memory for `n` values cannot be had, so
            /// that a huge size is an error rather than an abort of the
            /// process.
            pub fn zeros(element_type: ElementType, n: usize) -> Option<ArrayData> {
                // `vec![0; n]` aborts when the allocation fails; a failed
                // `try_reserve_exact` is an answer. The probe is freed at
                // once, and `vec!` then takes zeroed pages from the system
                // without writing them.
                let bytes = n.checked_mul(element_type.byte_size())?;
                Vec::<u8>::new().try_reserve_exact(bytes).ok()?;
                Some(match element_type {
                    $(ElementType::$variant => {
                        ArrayData::$variant(vec![<$rust as Default>::default(); n])
                    })*
                    ElementType::Tuple | ElementType::Token => return None,
                })
            }
        }

        $(
            impl From<Vec<$rust>> for ArrayData {
                fn from(v: Vec<$rust>) -> ArrayData { ArrayData::$variant(v) }
            }
        )*
    };
}

crate::element_type_table!(__define_array_data {});

#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch_array_rows {
    ({ $data:expr, $v:ident, $body:expr }
     $($variant:ident, $name:literal, $rust:ty, $bytes:literal, $bits:literal, $kind:ident;)*) => {
        match $data {
            $($crate::ArrayData::$variant($v) => $body,)*
        }
    };
}

/// Runs `$body` with `$v` bound to the typed vector inside an [`ArrayData`]
/// (by reference or by value, as the matched expression gives it); one arm
/// per element type, generated from the element type table.
///
/// ```
/// use oxla_ir::{dispatch_array, ArrayData};
/// let d = ArrayData::F32(vec![1.0, 2.0]);
/// let n = dispatch_array!(&d, v => v.len());
/// assert_eq!(n, 2);
/// ```
#[macro_export]
macro_rules! dispatch_array {
    ($data:expr, $v:ident => $body:expr) => {
        $crate::element_type_table!(__dispatch_array_rows { $data, $v, $body })
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __with_native_type_rows {
    ({ $ty:expr, $T:ident, $body:expr, $tuple:expr }
     $($variant:ident, $name:literal, $rust:ty, $bytes:literal, $bits:literal, $kind:ident;)*) => {
        match $ty {
            $($crate::ElementType::$variant => {
                type $T = $rust;
                $body
            })*
            $crate::ElementType::Tuple | $crate::ElementType::Token => $tuple,
        }
    };
}

/// Runs `$body` with the type `$T` standing for the Rust type of the
/// element type `$ty` ([`NativeType`]); `$tuple` is the value for
/// `ElementType::Tuple`. Generated from the element type table.
///
/// ```
/// use oxla_ir::{with_native_type, ElementType, NativeType};
/// let bytes = with_native_type!(ElementType::Bf16, T => std::mem::size_of::<T>(), tuple => 0);
/// assert_eq!(bytes, 2);
/// ```
#[macro_export]
macro_rules! with_native_type {
    ($ty:expr, $T:ident => $body:expr, tuple => $tuple:expr) => {
        $crate::element_type_table!(__with_native_type_rows {
            $ty,
            $T,
            $body,
            $tuple
        })
    };
}

impl ArrayData {
    /// The number of values.
    pub fn len(&self) -> usize {
        dispatch_array!(self, v => v.len())
    }

    /// `true` when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values picked at `indices`, in that order.
    pub fn gather(&self, indices: &[usize]) -> ArrayData {
        dispatch_array!(self, v => indices.iter().map(|&i| v[i]).collect::<Vec<_>>().into())
    }

    /// The values' bit patterns, little-endian, `byte_size` bytes each (see
    /// [`crate::ElementBits`]): what a `.npy` file or a StableHLO hex
    /// constant holds.
    ///
    /// ```
    /// use oxla_ir::{ArrayData, bf16};
    /// let d = ArrayData::Bf16(vec![bf16::from_f32(1.0), bf16::from_f32(-2.0)]);
    /// assert_eq!(d.to_le_bytes(), vec![0x80, 0x3f, 0x00, 0xc0]);
    /// ```
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let size = self.element_type().byte_size();
        let mut out = Vec::with_capacity(self.len() * size);
        dispatch_array!(self, v => for &x in v.iter() {
            out.extend_from_slice(&crate::ElementBits::to_bits128(x).to_le_bytes()[..size]);
        });
        out
    }

    /// The values of `element_type` whose bit patterns are `bytes`
    /// (`byte_size` bytes each, little-endian unless `big_endian`); `None`
    /// for `Tuple` or a length that is not a multiple of the size.
    ///
    /// ```
    /// use oxla_ir::{ArrayData, ElementType, Int4};
    /// let d = ArrayData::from_bytes(ElementType::S4, &[0x0f, 0x07], false).unwrap();
    /// assert_eq!(d.format_value(0), "-1");
    /// assert_eq!(d.to_le_bytes(), vec![0x0f, 0x07]);
    /// ```
    pub fn from_bytes(
        element_type: ElementType,
        bytes: &[u8],
        big_endian: bool,
    ) -> Option<ArrayData> {
        let size = element_type.byte_size();
        if size == 0 || !bytes.len().is_multiple_of(size) {
            return None;
        }
        let word = |c: &[u8]| {
            let mut b = [0u8; 16];
            b[..size].copy_from_slice(c);
            if big_endian {
                // A complex value is two big-endian parts, real first.
                let part = if element_type.is_complex() {
                    size / 2
                } else {
                    size
                };
                b[..size].chunks_mut(part).for_each(<[u8]>::reverse);
            }
            u128::from_le_bytes(b)
        };
        crate::with_native_type!(element_type, T => Some(ArrayData::from(
            bytes.chunks_exact(size).map(|c| <T as crate::ElementBits>::from_bits128(word(c))).collect::<Vec<T>>()
        )), tuple => None)
    }

    /// The value at `index` printed as in HLO text.
    pub fn format_value(&self, index: usize) -> String {
        dispatch_array!(self, v => crate::literal::text::HloValue::hlo_text(v[index]))
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Payload {
    Array(ArrayData),
    Tuple(Vec<Literal>),
    /// An array whose values were elided when its text was printed: the
    /// shape is known, the data is not (and is never allocated).
    Elided,
}

/// A constant value: an array of any element type and rank, or a tuple.
///
/// ```
/// use oxla_ir::Literal;
/// let x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.])?;
/// assert_eq!(x.shape().to_string(), "f32[2,3]");
/// assert_eq!(x.to_vec::<f32>()?, vec![1., 2., 3., 4., 5., 6.]);
/// assert!(x.to_vec::<i32>().is_err()); // wrong type: an error, not a panic
/// assert_eq!(x.to_string(), "f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}");
/// assert_eq!(Literal::scalar(7i32).to_string(), "s32[] 7");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Literal {
    shape: Shape,
    payload: Payload,
    home: Home,
}

/// Takes back the storage of array literals as they are dropped, to reuse
/// it (an executable keeps its large output buffers this way, so a loop
/// that drops each result before the next call never page-faults a fresh
/// buffer). See [`Literal::return_storage_to`].
pub trait StorageSink: Send + Sync {
    /// Receives the values of an array literal being dropped. The sink
    /// decides whether to keep them; whatever it drops is freed.
    fn reclaim(&self, data: ArrayData);
}

/// Where a literal's storage goes when it is dropped: a sink, held weakly
/// (the sink's owner may be gone by then), or the allocator. Not part of
/// the value: clones go to the allocator, and equality ignores it.
#[derive(Default)]
struct Home(Option<Weak<dyn StorageSink>>);

impl Clone for Home {
    fn clone(&self) -> Home {
        Home(None)
    }
}

impl PartialEq for Home {
    fn eq(&self, _: &Home) -> bool {
        true
    }
}

impl fmt::Debug for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Literal")
            .field("shape", &self.shape)
            .field("payload", &self.payload)
            .finish()
    }
}

impl Drop for Literal {
    fn drop(&mut self) {
        if let Some(sink) = self.home.0.take().and_then(|w| w.upgrade())
            && let Payload::Array(d) = &mut self.payload
        {
            sink.reclaim(std::mem::replace(d, ArrayData::U8(Vec::new())));
        }
    }
}

impl Literal {
    /// An array literal with `dims` holding `data` in row-major order.
    /// Fails when the dims are invalid or `data` has the wrong length.
    pub fn from_vec<T: NativeType>(dims: &[i64], data: Vec<T>) -> Result<Literal> {
        Literal::from_array_data(dims, T::into_data(data))
    }

    /// An array literal from untyped data (the element type is the data's).
    pub fn from_array_data(dims: &[i64], data: ArrayData) -> Result<Literal> {
        let shape = Shape::new(data.element_type(), dims);
        shape.validate()?;
        let expected = shape.element_count();
        if data.len() as i64 != expected {
            return Err(Error::LiteralSize {
                shape: shape.to_string(),
                expected,
                actual: data.len(),
            });
        }
        Ok(Literal {
            shape,
            payload: Payload::Array(data),
            home: Home::default(),
        })
    }

    /// A rank-0 literal.
    pub fn scalar<T: NativeType>(value: T) -> Literal {
        Literal {
            shape: Shape::scalar(T::ELEMENT_TYPE),
            payload: Payload::Array(T::into_data(vec![value])),
            home: Home::default(),
        }
    }

    /// A rank-0 literal of the real float type `ty` holding `value`
    /// rounded to it (nearest, ties to even); `None` when `ty` is not a
    /// real float type.
    ///
    /// ```
    /// use oxla_ir::{ElementType, Literal};
    /// let x = Literal::float_scalar(ElementType::Bf16, 0.1).unwrap();
    /// assert_eq!(x.to_string(), "bf16[] 0.1001");
    /// assert!(Literal::float_scalar(ElementType::S32, 1.0).is_none());
    /// ```
    pub fn float_scalar(ty: ElementType, value: f64) -> Option<Literal> {
        fn make<T: crate::RealFloat>(value: f64) -> Option<Literal> {
            Some(Literal::scalar(T::from_f64(value)))
        }
        match ty {
            ElementType::F4E2M1FN => make::<crate::Float4E2M1FN>(value),
            ElementType::F8E3M4 => make::<crate::Float8E3M4>(value),
            ElementType::F8E4M3 => make::<crate::Float8E4M3>(value),
            ElementType::F8E4M3FN => make::<crate::Float8E4M3FN>(value),
            ElementType::F8E4M3FNUZ => make::<crate::Float8E4M3FNUZ>(value),
            ElementType::F8E4M3B11FNUZ => make::<crate::Float8E4M3B11FNUZ>(value),
            ElementType::F8E5M2 => make::<crate::Float8E5M2>(value),
            ElementType::F8E5M2FNUZ => make::<crate::Float8E5M2FNUZ>(value),
            ElementType::F8E8M0FNU => make::<crate::Float8E8M0FNU>(value),
            ElementType::Bf16 => make::<crate::bf16>(value),
            ElementType::F16 => make::<crate::f16>(value),
            ElementType::F32 => make::<f32>(value),
            ElementType::F64 => make::<f64>(value),
            ElementType::Pred
            | ElementType::S1
            | ElementType::S2
            | ElementType::S4
            | ElementType::S8
            | ElementType::S16
            | ElementType::S32
            | ElementType::S64
            | ElementType::U1
            | ElementType::U2
            | ElementType::U4
            | ElementType::U8
            | ElementType::U16
            | ElementType::U32
            | ElementType::U64
            | ElementType::C64
            | ElementType::C128
            | ElementType::Tuple
            | ElementType::Token => None,
        }
    }

    /// A literal of `shape` filled with zeros (`false` for `pred`). Fails
    /// with [`Error::InvalidShape`] for an invalid shape, or one whose bytes
    /// the system cannot allocate.
    pub fn zeros(shape: &Shape) -> Result<Literal> {
        shape.validate()?;
        if shape.is_tuple() {
            let elements = shape
                .tuple_shapes()
                .iter()
                .map(Literal::zeros)
                .collect::<Result<Vec<_>>>()?;
            return Ok(Literal::tuple(elements));
        }
        if shape.is_token() {
            return Ok(Literal::token());
        }
        let n = shape.element_count() as usize;
        let data =
            ArrayData::zeros(shape.element_type(), n).ok_or_else(|| Error::InvalidShape {
                shape: shape.to_string(),
                reason: format!(
                    "its {} bytes cannot be allocated",
                    n as u128 * shape.element_type().byte_size() as u128
                ),
            })?;
        Literal::from_array_data(shape.dims(), data)
    }

    /// A literal of `shape` whose values are unknown: what XLA's
    /// `constant({...})` leaves of a constant printed without its values.
    /// Nothing is allocated; a tuple shape gives a tuple of elided arrays.
    /// Its values cannot be read ([`Literal::as_slice`] and the other
    /// accessors fail), so backends refuse it before running
    /// ([`crate::Computation::check_values_known`]).
    ///
    /// ```
    /// use oxla_ir::{ElementType::F32, Literal, Shape};
    /// let c = Literal::elided(&Shape::new(F32, &[1000, 1000]))?;
    /// assert!(c.is_elided());
    /// assert_eq!(c.values_text(), "{...}");
    /// assert!(c.as_slice::<f32>().is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn elided(shape: &Shape) -> Result<Literal> {
        shape.validate()?;
        if shape.is_tuple() {
            let elements = shape
                .tuple_shapes()
                .iter()
                .map(Literal::elided)
                .collect::<Result<Vec<_>>>()?;
            return Ok(Literal::tuple(elements));
        }
        Ok(Literal {
            shape: shape.clone(),
            payload: Payload::Elided,
            home: Home::default(),
        })
    }

    /// `true` if the values of this literal, or of any element of a tuple,
    /// were elided (see [`Literal::elided`]).
    pub fn is_elided(&self) -> bool {
        match &self.payload {
            Payload::Array(_) => false,
            Payload::Tuple(t) => t.iter().any(Literal::is_elided),
            Payload::Elided => true,
        }
    }

    /// The error for a request to read the values of an elided literal.
    fn elided_error(&self) -> Error {
        Error::InvalidShape {
            shape: self.shape.to_string(),
            reason: "its values were elided (`{...}`) when it was printed, so they cannot be read"
                .into(),
        }
    }

    /// A tuple of literals.
    pub fn tuple(elements: Vec<Literal>) -> Literal {
        Literal {
            shape: Shape::tuple(elements.iter().map(|l| l.shape.clone()).collect()),
            payload: Payload::Tuple(elements),
            home: Home::default(),
        }
    }

    /// The value of a token (`token[]`), which carries no data.
    ///
    /// ```
    /// use oxla_ir::Literal;
    /// let t = Literal::token();
    /// assert!(t.shape().is_token());
    /// assert!(t.tuple_elements().is_none());
    /// ```
    pub fn token() -> Literal {
        Literal {
            shape: Shape::token(),
            payload: Payload::Tuple(Vec::new()),
            home: Home::default(),
        }
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The element type (`Tuple` for a tuple).
    pub fn element_type(&self) -> ElementType {
        self.shape.element_type()
    }

    /// The number of elements of an array, elided or not (0 for a tuple).
    pub fn element_count(&self) -> usize {
        match &self.payload {
            Payload::Array(d) => d.len(),
            Payload::Tuple(_) => 0,
            Payload::Elided => usize::try_from(self.shape.element_count()).unwrap_or(0),
        }
    }

    /// The untyped values of an array literal; `None` for a tuple and for
    /// an elided literal.
    pub fn array_data(&self) -> Option<&ArrayData> {
        match &self.payload {
            Payload::Array(d) => Some(d),
            Payload::Tuple(_) | Payload::Elided => None,
        }
    }

    /// Mutably borrows the values as `&mut [T]`; an error if `T` is not the
    /// element type (or the literal is a tuple). The values can change;
    /// their number and type cannot, so a literal's data always matches
    /// its shape (which is what lets compiled code trust the shape).
    ///
    /// ```
    /// use oxla_ir::Literal;
    /// let mut x = Literal::from_vec(&[3], vec![1i32, 2, 3])?;
    /// x.as_mut_slice::<i32>()?[1] = 20;
    /// assert_eq!(x.to_vec::<i32>()?, vec![1, 20, 3]);
    /// assert!(x.as_mut_slice::<f32>().is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn as_mut_slice<T: NativeType>(&mut self) -> Result<&mut [T]> {
        if let Payload::Elided = self.payload {
            return Err(self.elided_error());
        }
        let shape = &self.shape;
        match &mut self.payload {
            Payload::Array(d) => T::slice_of_mut(d),
            Payload::Tuple(_) | Payload::Elided => None,
        }
        .ok_or_else(|| Error::LiteralType {
            shape: shape.to_string(),
            requested: T::ELEMENT_TYPE,
        })
    }

    /// Overwrites the elements `offset..offset + values.len()` (row-major)
    /// with `values`; an error if the element types differ, the range
    /// runs past the end, or the literal is a tuple.
    ///
    /// ```
    /// use oxla_ir::{ArrayData, Literal};
    /// let mut x = Literal::from_vec(&[2, 2], vec![0f32; 4])?;
    /// x.copy_values_from(1, &ArrayData::F32(vec![5., 6.]))?;
    /// assert_eq!(x.to_vec::<f32>()?, vec![0., 5., 6., 0.]);
    /// assert!(x.copy_values_from(3, &ArrayData::F32(vec![1., 2.])).is_err());
    /// assert!(x.copy_values_from(0, &ArrayData::S32(vec![1])).is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn copy_values_from(&mut self, offset: usize, values: &ArrayData) -> Result<()> {
        if let Payload::Elided = self.payload {
            return Err(self.elided_error());
        }
        let shape = self.shape.to_string();
        let invalid = |reason: String| Error::InvalidShape {
            shape: shape.clone(),
            reason,
        };
        let Payload::Array(dst) = &mut self.payload else {
            return Err(invalid("a tuple has no values to overwrite".into()));
        };
        if dst.element_type() != values.element_type() {
            return Err(Error::LiteralType {
                shape: shape.clone(),
                requested: values.element_type(),
            });
        }
        let end = offset
            .checked_add(values.len())
            .filter(|&e| e <= dst.len())
            .ok_or_else(|| {
                invalid(format!(
                    "{} values at offset {offset} run past its {} elements",
                    values.len(),
                    dst.len()
                ))
            })?;
        dispatch_array!(dst, v => {
            if let Some(s) = NativeType::slice_of(values) {
                v[offset..end].copy_from_slice(s);
            }
        });
        Ok(())
    }

    /// A raw pointer to the first value of an array literal (`None` for a
    /// tuple), for code that fills the values in place (the JIT's
    /// `run_into`). Writing through it is `unsafe`: only within
    /// `element_count() * element_type().byte_size()` bytes, and only
    /// valid values of the element type (0 or 1 for `pred`).
    pub fn array_ptr_mut(&mut self) -> Option<*mut u8> {
        match &mut self.payload {
            Payload::Array(d) => Some(dispatch_array!(d, v => v.as_mut_ptr().cast::<u8>())),
            Payload::Tuple(_) | Payload::Elided => None,
        }
    }

    /// [`Literal::array_ptr_mut`] for every array leaf, depth first (one
    /// pointer for an array literal; a tuple's leaves in order). The same
    /// rules hold for writing through them.
    pub fn leaf_ptrs_mut(&mut self) -> Vec<*mut u8> {
        fn walk(l: &mut Literal, out: &mut Vec<*mut u8>) {
            match &mut l.payload {
                Payload::Array(_) => out.extend(l.array_ptr_mut()),
                Payload::Tuple(t) => t.iter_mut().for_each(|e| walk(e, out)),
                Payload::Elided => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// The values of an array literal, moved out (`None` for a tuple).
    /// The storage goes to the caller, not to a sink set with
    /// [`Literal::return_storage_to`].
    pub fn into_array_data(mut self) -> Option<ArrayData> {
        self.home = Home::default();
        match &mut self.payload {
            Payload::Array(d) => Some(std::mem::replace(d, ArrayData::U8(Vec::new()))),
            Payload::Tuple(_) | Payload::Elided => None,
        }
    }

    /// When this array literal is dropped, hands its storage to `sink`
    /// (if the sink still exists) instead of freeing it. Clones do not
    /// inherit this; a tuple's elements keep their own. The JIT uses it so
    /// that dropping a large result gives its buffer back to the
    /// executable for the next run.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex, Weak};
    /// use oxla_ir::{ArrayData, Literal, StorageSink};
    ///
    /// #[derive(Default)]
    /// struct Keep(Mutex<Vec<ArrayData>>);
    /// impl StorageSink for Keep {
    ///     fn reclaim(&self, data: ArrayData) {
    ///         if let Ok(mut kept) = self.0.lock() {
    ///             kept.push(data);
    ///         }
    ///     }
    /// }
    ///
    /// let keep = Arc::new(Keep::default());
    /// let mut x = Literal::from_vec(&[3], vec![1f32, 2., 3.])?;
    /// let sink: Weak<dyn StorageSink> = Arc::downgrade(&keep) as Weak<dyn StorageSink>;
    /// x.return_storage_to(sink);
    /// let copy = x.clone();
    /// drop(x);
    /// drop(copy); // a clone's storage is freed as usual
    /// let kept = keep.0.lock().map(|k| k.clone()).unwrap_or_default();
    /// assert_eq!(kept, vec![ArrayData::F32(vec![1., 2., 3.])]);
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn return_storage_to(&mut self, sink: Weak<dyn StorageSink>) {
        self.home = Home(Some(sink));
    }

    /// The elements of a tuple literal, moved out (no copy); an array
    /// literal comes back unchanged as the error.
    ///
    /// ```
    /// use oxla_ir::Literal;
    /// let t = Literal::tuple(vec![Literal::scalar(1i32), Literal::scalar(2f32)]);
    /// let parts = t.into_tuple_elements().map_err(|_| "not a tuple")?;
    /// assert_eq!(parts[1], Literal::scalar(2f32));
    /// assert!(Literal::scalar(3u8).into_tuple_elements().is_err());
    /// # Ok::<(), &str>(())
    /// ```
    pub fn into_tuple_elements(mut self) -> std::result::Result<Vec<Literal>, Literal> {
        if self.shape.is_token() {
            return Err(self);
        }
        match &mut self.payload {
            Payload::Tuple(t) => Ok(std::mem::take(t)),
            Payload::Array(_) | Payload::Elided => Err(self),
        }
    }

    /// The elements of a tuple literal; `None` for an array.
    pub fn tuple_elements(&self) -> Option<&[Literal]> {
        if self.shape.is_token() {
            return None;
        }
        match &self.payload {
            Payload::Array(_) | Payload::Elided => None,
            Payload::Tuple(t) => Some(t),
        }
    }

    /// Borrows the values as `&[T]`; an error if `T` is not the element type
    /// (or the values were elided).
    pub fn as_slice<T: NativeType>(&self) -> Result<&[T]> {
        if let Payload::Elided = self.payload {
            return Err(self.elided_error());
        }
        self.array_data()
            .and_then(T::slice_of)
            .ok_or_else(|| Error::LiteralType {
                shape: self.shape.to_string(),
                requested: T::ELEMENT_TYPE,
            })
    }

    /// Copies the values out as `Vec<T>`; an error if `T` is not the
    /// element type.
    pub fn to_vec<T: NativeType>(&self) -> Result<Vec<T>> {
        self.as_slice::<T>().map(<[T]>::to_vec)
    }

    /// The same values with other dims of equal element count.
    ///
    /// ```
    /// use oxla_ir::Literal;
    /// let x = Literal::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?.reshape(&[3, 2])?;
    /// assert_eq!(x.shape().dims(), &[3, 2]);
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn reshape(&self, dims: &[i64]) -> Result<Literal> {
        if let Payload::Elided = self.payload {
            return Err(self.elided_error());
        }
        let data = self.array_data().ok_or_else(|| Error::InvalidShape {
            shape: self.shape.to_string(),
            reason: "a tuple cannot be reshaped".into(),
        })?;
        Literal::from_array_data(dims, data.clone())
    }

    /// The values only, in HLO constant notation: `7`, `{1, 2, 3}`,
    /// `{ { 1, 2 }, { 3, 4 } }`, `(1, {2, 3})` for a tuple, `{...}` for
    /// elided values.
    pub fn values_text(&self) -> String {
        match &self.payload {
            Payload::Elided => "{...}".into(),
            Payload::Tuple(elements) => {
                let parts: Vec<String> = elements.iter().map(Literal::values_text).collect();
                format!("({})", parts.join(", "))
            }
            Payload::Array(data) => {
                let mut out = String::new();
                nested_values(&mut out, data, self.shape.dims(), 0, &mut 0, true);
                out
            }
        }
    }

    /// Like `Display`, but prints at most `max_elements` values, eliding the
    /// middle of large arrays with `...`.
    pub fn to_string_elided(&self, max_elements: usize) -> String {
        let Some(data) = self.array_data() else {
            return self.to_string();
        };
        if data.len() <= max_elements {
            return self.to_string();
        }
        let half = max_elements / 2;
        let head: Vec<String> = (0..half).map(|i| data.format_value(i)).collect();
        let tail: Vec<String> = (data.len() - half..data.len())
            .map(|i| data.format_value(i))
            .collect();
        format!(
            "{} {{{}, ..., {}}} ({} elements, row-major; middle elided)",
            self.shape,
            head.join(", "),
            tail.join(", "),
            data.len()
        )
    }
}

/// Writes the values of the sub-array at dimension `dim` starting at
/// element `*pos`. `top` marks the outermost call (rank-1 literals print as
/// `{1, 2}`, nested rows as `{ 1, 2 }`).
fn nested_values(
    out: &mut String,
    data: &ArrayData,
    dims: &[i64],
    dim: usize,
    pos: &mut usize,
    top: bool,
) {
    if dims.is_empty() {
        out.push_str(&data.format_value(0));
        return;
    }
    let n = dims[dim];
    let inner_space = if top && dims.len() == 1 { "" } else { " " };
    out.push('{');
    out.push_str(inner_space);
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        if dim + 1 == dims.len() {
            out.push_str(&data.format_value(*pos));
            *pos += 1;
        } else {
            nested_values(out, data, dims, dim + 1, pos, false);
        }
    }
    // An empty inner extent still has to advance nothing; an empty outer
    // extent prints `{}`.
    if n > 0 {
        out.push_str(inner_space);
    }
    out.push('}');
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.payload {
            Payload::Elided => write!(f, "{} {{...}}", self.shape),
            Payload::Tuple(elements) => {
                writeln!(f, "(")?;
                for (i, e) in elements.iter().enumerate() {
                    let sep = if i + 1 < elements.len() { "," } else { "" };
                    writeln!(f, "{e}{sep}")?;
                }
                write!(f, ")")
            }
            Payload::Array(data) => {
                let dims = self.shape.dims();
                if dims.len() < 2 {
                    return write!(f, "{} {}", self.shape, self.values_text());
                }
                // One line per outermost row, as XLA prints matrices.
                writeln!(f, "{} {{", self.shape)?;
                let mut pos = 0;
                for i in 0..dims[0] {
                    let mut row = String::new();
                    nested_values(&mut row, data, dims, 1, &mut pos, false);
                    let sep = if i + 1 < dims[0] { "," } else { "" };
                    writeln!(f, "  {row}{sep}")?;
                }
                write!(f, "}}")
            }
        }
    }
}
