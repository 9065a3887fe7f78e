//! `constants:` keys that name a bank (`c[0x3][0x10]`), what a listing's
//! `__constant__` (bank 3) and `__device__` (bank 4, their addresses)
//! variables read, through the real binary. Every expected value is worked
//! out by hand in the comment above it.

use serde_json::{Value, json};

mod support;

fn run(text: &str) -> (i32, String, String) {
    support::run_text(
        "constant_banks",
        text,
        &["--format", "json", "--buffers", "all"],
    )
}

/// Bank 3 holds [10, 20, 30, 40] from 0x0. Thread t reads word t through
/// the index register (`c[0x3][R2]`, R2 = 4t) and adds word 2 (0x8, = 30)
/// read directly: out = [40, 50, 60, 70]. The bank-0 word 0x160 (the old
/// form, an expression) still gives out's address.
#[test]
fn bank_3_words_read_directly_and_by_index() {
    let text = "name: bank 3
launch: {threads: 4}
memory:
  out: {type: u32, len: 4}
constants:
  0x160: out
  c[0x3][0x0]: [10, 20, 30, 40]
program: |
  S2R R0, SR_TID.X
  IMAD.SHL.U32 R2, R0, 4, RZ
  LDC R3, c[0x3][R2]
  IADD3 R3, R3, c[0x3][0x8], RZ
  IMAD R4, R0, 4, c[0x0][0x160]
  STG.E [R4], R3
  EXIT
";
    let (code, out, err) = run(text);
    assert_eq!(code, 0, "{err}{out}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["buffers"]["out"], json!([40, 50, 60, 70]));
}

/// A listing-style program (sm_90: 64-bit device addresses) takes the
/// `__device__` variables' addresses from bank 4: `c[0x4][0x8]` is `val`'s
/// 8-byte device address and `c[0x4][0x0]` is `res`'s. Bank 3 holds the
/// list [1.0, 0.5, 5]: two f32 words, then the integer 5 at 0x8. `LDG`
/// reads val[0] = 7, IADD3 adds 5: res = [12].
#[test]
fn bank_4_holds_device_variable_addresses() {
    let text = "name: bank 4
arch: sm_90
launch: {threads: 1}
memory:
  val: {type: i32, init: [7]}
  res: {type: i32, len: 1}
constants:
  c[0x3][0x0]: [1.0, 0.5, 5]
  c[0x4][0x0]: res
  c[0x4][0x8]: val
program: |
  LDC.64 R2, c[0x4][0x8]
  LDC.64 R4, c[0x4][0x0]
  LDG.E R6, [R2.64]
  IADD3 R6, R6, c[0x3][0x8], RZ
  STG.E [R4.64], R6
  EXIT
";
    let (code, out, err) = run(text);
    assert_eq!(code, 0, "{err}{out}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["buffers"]["res"], json!([12]));
}

/// A bank word nothing sets: an error at its line (5, the program's first)
/// naming the key to add.
#[test]
fn an_unset_bank_word_names_the_key_to_add() {
    let text = "name: unset
arch: sm_90
launch: {threads: 1}
program: |
  LDC.64 R2, c[0x4][0x0]
  LDC.64 R4, c[0x4][0x10]
  EXIT
";
    let (code, _, err) = run(text);
    assert_eq!(code, 2, "{err}");
    for needle in [
        ":5:",
        "c[0x4][0x0] is not set",
        "`c[0x4][0x0]: BUFFER` under `constants:`",
        "__device__",
    ] {
        assert!(err.contains(needle), "`{needle}` not in:\n{err}");
    }
}

/// A listing that reads its parameters with no `args:`: the hint names
/// `args:` (sm_90 parameters start at 0x210; 0x218 is the second
/// pointer, and 0x210 itself, the word after the descriptor, reads 0).
#[test]
fn an_unset_parameter_of_a_listing_points_at_args() {
    let text = "name: no args
arch: sm_90
launch: {threads: 1}
program: |
  LDC R2, c[0x0][0x218]
  EXIT
";
    let (code, _, err) = run(text);
    assert_eq!(code, 2, "{err}");
    for needle in ["c[0x0][0x218] is not set", "`args:`"] {
        assert!(err.contains(needle), "`{needle}` not in:\n{err}");
    }
}

/// Keys that do not name a word of a bank: located errors.
#[test]
fn bad_bank_keys_are_located_errors() {
    let cases = [
        ("c[0x12][0x0]: 1", "there is no constant bank 18"),
        ("c[0x3][0x6]: 1", "not a word of the bank"),
        ("c[0x3][0x10: 1", "is not a constant"),
        ("c[0x3][0xfffc]: [1, 2]", "past the end of bank 3"),
        ("c[0x3][0x0]: nothere", "`nothere`"),
    ];
    for (line, needle) in cases {
        let text = format!(
            "name: bad\nlaunch: {{threads: 1}}\nconstants:\n  {line}\nprogram: |\n  EXIT\n"
        );
        let (code, _, err) = run(&text);
        assert_eq!(code, 2, "{line}: {err}");
        assert!(err.contains(needle), "{line}: `{needle}` not in:\n{err}");
        assert!(err.contains(":4:"), "{line}: no line 4 in:\n{err}");
    }
}

/// A uniform register pair as an f64 source (`DMUL R4, R2, UR4`, as
/// nvcc's sm_90 listings write it): UR4:UR5 = 2.5 from bank 3 (`{f64:
/// 2.5}`, 8 bytes), R2:R3 = 1.5 (high word 0x3ff80000, low 0); by hand
/// 1.5 * 2.5 = 3.75, exact.
#[test]
fn a_uniform_pair_is_an_f64_source() {
    let text = "name: ur pair
launch: {threads: 1}
memory:
  out: {type: f64, len: 1}
constants:
  0x160: out
  c[0x3][0x0]: {f64: 2.5}
program: |
  ULDC.64 UR4, c[0x3][0x0]
  MOV R2, RZ
  MOV R3, 0x3ff80000
  DMUL R4, R2, UR4
  MOV R6, c[0x0][0x160]
  STG.E.64 [R6], R4
  EXIT
";
    let (code, out, err) = run(text);
    assert_eq!(code, 0, "{err}{out}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["buffers"]["out"], json!([3.75]));
}

/// sm_75's `[R8.64+UR4]`: the register pair R8:R9 (the index, 4, sign
/// extended) plus the uniform pair UR4:UR5 (the buffer's 64-bit device
/// address, `ULDC.64` from bank 4), as tests/kernels/bytes_shorts.sm_75
/// forms its byte addresses. By hand: the byte 9 lands at out[4].
#[test]
fn a_pair_plus_a_uniform_pair_is_a_64_bit_address() {
    let text = "name: r64 plus ur64
arch: sm_75
launch: {threads: 1}
memory:
  out: {type: u8, len: 8}
constants:
  c[0x4][0x0]: out
program: |
  ULDC.64 UR4, c[0x4][0x0]
  MOV R8, 0x4
  MOV R9, RZ
  MOV R0, 0x9
  STG.E.U8.SYS [R8.64+UR4], R0
  EXIT
";
    let (code, out, err) = run(text);
    assert_eq!(code, 0, "{err}{out}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["buffers"]["out"], json!([0, 0, 0, 0, 9, 0, 0, 0]));
}
