//! `custom-call`'s attributes ([`CustomCall`]).
//!
//! A custom-call names code outside the module (`custom_call_target`): a
//! backend's runtime function, a user's kernel. oxla parses, verifies and
//! prints it as XLA does, and refuses to evaluate it: there is nothing in
//! the module to run. Invariant: every attribute XLA's parser accepts on a
//! custom-call is kept, in the order written, and printed back unchanged
//! ([`CustomCall::attributes`]); the ones with a meaning for verification
//! (`api_version`, `operand_layout_constraints`) are also read into fields
//! and checked, so an attribute is never dropped.

use std::fmt;

use crate::{ComputationId, Shape};

/// The calling convention of a custom-call's target (XLA's
/// `CustomCallApiVersion`), spelled `api_version=API_VERSION_TYPED_FFI`.
///
/// ```
/// use oxla_ir::CustomCallApiVersion;
/// let v = CustomCallApiVersion::from_name("API_VERSION_TYPED_FFI").unwrap();
/// assert_eq!(v, CustomCallApiVersion::TypedFfi);
/// assert_eq!(v.to_string(), "API_VERSION_TYPED_FFI");
/// assert_eq!(CustomCallApiVersion::from_name("API_VERSION_UNSPECIFIED"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CustomCallApiVersion {
    /// `void f(void* out, void** in)`: the default.
    #[default]
    Original,
    /// Also reports an error status.
    StatusReturning,
    /// A status, and the opaque `backend_config` passed as a string.
    StatusReturningUnified,
    /// XLA's typed FFI: `backend_config` may be a dictionary.
    TypedFfi,
}

impl CustomCallApiVersion {
    /// Every version.
    pub const ALL: [CustomCallApiVersion; 4] = [
        CustomCallApiVersion::Original,
        CustomCallApiVersion::StatusReturning,
        CustomCallApiVersion::StatusReturningUnified,
        CustomCallApiVersion::TypedFfi,
    ];

    /// The HLO spelling.
    pub fn name(self) -> &'static str {
        match self {
            CustomCallApiVersion::Original => "API_VERSION_ORIGINAL",
            CustomCallApiVersion::StatusReturning => "API_VERSION_STATUS_RETURNING",
            CustomCallApiVersion::StatusReturningUnified => "API_VERSION_STATUS_RETURNING_UNIFIED",
            CustomCallApiVersion::TypedFfi => "API_VERSION_TYPED_FFI",
        }
    }

    /// Parses the HLO spelling; `None` for any other (XLA's
    /// `API_VERSION_UNSPECIFIED` included, which it refuses too).
    pub fn from_name(s: &str) -> Option<CustomCallApiVersion> {
        CustomCallApiVersion::ALL
            .into_iter()
            .find(|v| v.name() == s)
    }
}

impl fmt::Display for CustomCallApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `custom-call`'s attributes. Operands: any number, any shapes (tuples
/// included); the result is the declared shape.
///
/// ```
/// use oxla_ir::{CustomCall, CustomCallApiVersion};
/// let c = CustomCall::new("my_kernel");
/// assert_eq!(c.target, "my_kernel");
/// assert_eq!(c.api_version, CustomCallApiVersion::Original);
/// assert!(c.called_computations.is_empty() && c.attributes.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CustomCall {
    /// `custom_call_target`: the name of the code called, as written
    /// between the quotes (escapes kept).
    pub target: String,
    /// `api_version` (the default when absent).
    pub api_version: CustomCallApiVersion,
    /// `operand_layout_constraints`: one shape per operand, each compatible
    /// with its operand (same element type and dims; the layout is the
    /// constraint). `None` when absent.
    pub operand_layout_constraints: Option<Vec<Shape>>,
    /// `called_computations={..}` (or `to_apply=`): computations the target
    /// may call. Their signatures are the target's business, not checked.
    pub called_computations: Vec<ComputationId>,
    /// Every other attribute as `(key, value text)`, in the order written,
    /// `api_version` and `operand_layout_constraints` included:
    /// `backend_config`, `custom_call_has_side_effect`,
    /// `output_to_operand_aliasing`, `schedule`, `literal`, `window`,
    /// `dim_labels`, ... Printed back as written.
    pub attributes: Vec<(String, String)>,
}

impl CustomCall {
    /// A custom-call to `target` with no other attribute.
    pub fn new(target: &str) -> CustomCall {
        CustomCall {
            target: target.to_string(),
            api_version: CustomCallApiVersion::default(),
            operand_layout_constraints: None,
            called_computations: Vec::new(),
            attributes: Vec::new(),
        }
    }

    /// The value text of attribute `key`, if given.
    ///
    /// ```
    /// use oxla_ir::CustomCall;
    /// let mut c = CustomCall::new("f");
    /// c.attributes.push(("custom_call_has_side_effect".into(), "true".into()));
    /// assert_eq!(c.attribute("custom_call_has_side_effect"), Some("true"));
    /// assert_eq!(c.attribute("schedule"), None);
    /// ```
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}
