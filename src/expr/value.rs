//! Expression values and their conversions into machine words.

use super::EvalError;

/// The value of an expression: a 64-bit integer or a double.
///
/// Integers wrap like two's-complement hardware; mixing an integer with a
/// float promotes to float; comparisons and logical operators give `Int` 0/1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
}

impl Value {
    /// Nonzero (and NaN) is true, as in C.
    pub fn is_true(self) -> bool {
        match self {
            Value::Int(v) => v != 0,
            Value::Float(v) => v != 0.0,
        }
    }

    /// The value as a double (integers convert exactly up to 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Float(v) => v,
        }
    }

    /// The bits a 32-bit register holds: an integer's low 32 bits (two's
    /// complement), a float's `f32` bit pattern.
    pub fn to_reg_bits(self) -> u32 {
        match self {
            Value::Int(v) => v as u32,
            Value::Float(v) => (v as f32).to_bits(),
        }
    }

    /// A predicate register: 1 for true, 0 for false.
    pub fn to_pred(self) -> u32 {
        u32::from(self.is_true())
    }

    /// An element of a `u32` or `i32` buffer: integers wrap to 32 bits; a
    /// float is an error, since silently truncating data is a trap.
    pub fn to_int_elem(self) -> Result<u32, EvalError> {
        match self {
            Value::Int(v) => Ok(v as u32),
            Value::Float(v) => Err(EvalError {
                offset: 0,
                len: 0,
                message: format!("a float ({v}) in an integer buffer"),
                hint: Some("use `type: f32` for float data".into()),
            }),
        }
    }

    /// An element of an `f32` buffer, as its bit pattern.
    pub fn to_f32_bits(self) -> u32 {
        (self.as_f64() as f32).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_bits() {
        assert_eq!(Value::Int(-1).to_reg_bits(), 0xFFFF_FFFF);
        // 2^32 + 5 keeps its low 32 bits.
        assert_eq!(Value::Int(0x1_0000_0005).to_reg_bits(), 5);
        // 1.5f32 = sign 0, exponent 127, mantissa 0x400000.
        assert_eq!(Value::Float(1.5).to_reg_bits(), 0x3FC0_0000);
    }

    #[test]
    fn predicates_and_elements() {
        assert_eq!(Value::Int(7).to_pred(), 1);
        assert_eq!(Value::Float(0.0).to_pred(), 0);
        assert_eq!(Value::Int(-2).to_int_elem(), Ok(0xFFFF_FFFE));
        let err = Value::Float(0.5).to_int_elem().unwrap_err();
        assert!(err.hint.unwrap().contains("type: f32"));
        // 2 as f32 = 0x40000000.
        assert_eq!(Value::Int(2).to_f32_bits(), 0x4000_0000);
    }
}
