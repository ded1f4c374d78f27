//! `fft`'s attribute: which transform ([`FftType`]).

use std::fmt;

/// The four transforms of XLA's `fft`, spelled `FFT`, `IFFT`, `RFFT`,
/// `IRFFT` in HLO text (`fft_type=RFFT`).
///
/// ```
/// use oxla_ir::FftType;
/// assert_eq!(FftType::from_name("IRFFT"), Some(FftType::Irfft));
/// assert_eq!(FftType::Rfft.to_string(), "RFFT");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FftType {
    /// Complex to complex, forward: `X[k] = Σ x[j] e^{-2πi·jk/n}`.
    Fft,
    /// Complex to complex, inverse (scaled by `1/n` per axis).
    Ifft,
    /// Real to complex, forward; the last axis keeps `n/2 + 1` bins.
    Rfft,
    /// Complex to real, inverse of `RFFT`; the last axis becomes `n`.
    Irfft,
}

impl FftType {
    /// Every transform.
    pub const ALL: [FftType; 4] = [FftType::Fft, FftType::Ifft, FftType::Rfft, FftType::Irfft];

    /// The HLO spelling.
    pub fn name(self) -> &'static str {
        match self {
            FftType::Fft => "FFT",
            FftType::Ifft => "IFFT",
            FftType::Rfft => "RFFT",
            FftType::Irfft => "IRFFT",
        }
    }

    /// Parses the HLO spelling.
    pub fn from_name(name: &str) -> Option<FftType> {
        FftType::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for FftType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
