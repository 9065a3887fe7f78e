//! Tests on the corpus under `tests/kernels` (listings nvcc 13 printed) and
//! on hand-written listing text. Expected values were read off the listing
//! files by hand unless a comment says otherwise.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels")
}

fn corpus_file(name: &str) -> String {
    let path = corpus_dir().join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every committed listing, sorted by file name.
fn corpus_listings() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = fs::read_dir(corpus_dir())
        .expect("tests/kernels exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("sass" | "nvdisasm")
            )
        })
        .map(|p| {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            let text = fs::read_to_string(&p).expect("listing is UTF-8");
            (name, text)
        })
        .collect();
    out.sort();
    out
}

fn read_ok(text: &str) -> Listing {
    match read(text) {
        Ok(l) => l,
        Err(errs) => panic!(
            "listing did not read: {}",
            errs.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn read_errs(text: &str) -> Vec<AsmError> {
    match read(text) {
        Ok(l) => panic!("expected an error, read {} kernels", l.kernels.len()),
        Err(e) => e,
    }
}

#[test]
fn every_corpus_listing_reads_with_its_architecture_and_padding() {
    let listings = corpus_listings();
    // 34 kernel files (the constant bank probe among them) on seven
    // architectures, two tools each (`ls tests/kernels/*.cu | wc -l` is 34).
    assert_eq!(listings.len(), 34 * 7 * 2);
    for (name, text) in &listings {
        let l = match read(text) {
            Ok(l) => l,
            Err(errs) => panic!("{name}: {}", errs[0]),
        };
        // File names are NAME.sm_XX.TOOL.
        let arch_name = name.split('.').nth(1).unwrap_or("");
        assert_eq!(l.arch, Arch::parse(arch_name), "{name}");
        let expected_format = if name.ends_with(".sass") {
            Format::Cuobjdump
        } else {
            Format::Nvdisasm
        };
        assert_eq!(l.format, expected_format, "{name}");
        let kernels = match name.split('.').next() {
            Some("two_kernels") => 2,
            Some("abi_probe") => 7,
            _ => 1,
        };
        assert_eq!(l.kernels.len(), kernels, "{name}");
        for k in &l.kernels {
            assert!(
                k.padding_start.is_some(),
                "{name}: {} has no final self-branch",
                k.name
            );
            assert!(!k.body().is_empty(), "{name}");
            for ins in &k.instructions {
                // Every listing was printed with the encodings, and every
                // architecture in the corpus is Volta or later.
                assert_eq!(ins.words.len(), 2, "{name} line {}", ins.line);
                assert!(ins.control.is_some(), "{name} line {}", ins.line);
            }
            for pad in &k.instructions[k.body().len() + 1..] {
                assert_eq!(pad.text, "NOP", "{name}");
            }
        }
    }
}

#[test]
fn seed_kernel_for_sm_90_as_cuobjdump_prints_it() {
    let l = read_ok(&corpus_file("seed.sm_90.sass"));
    assert_eq!(
        l.arch,
        Some(Arch {
            sm: 90,
            feature: None
        })
    );
    let k = l.kernel(None).expect("one kernel");
    assert_eq!(k.name, "_Z16divergent_kernelPfi");
    assert_eq!(k.plain_name.as_deref(), Some("divergent_kernel"));
    // 0x0000 to 0x0120 is code, 19 instructions; 0x0130 is `BRA 0x130`,
    // then NOPs to 0x01f0: 32 instructions in all.
    assert_eq!(k.instructions.len(), 32);
    assert_eq!(k.padding_start, Some(19));
    assert_eq!(k.body().len(), 19);
    assert_eq!(k.instructions[19].text, "BRA 0x130");
    assert_eq!(k.instructions[19].address, 0x130);
    let first = &k.instructions[0];
    assert_eq!(first.text, "LDC R1, c[0x0][0x28]");
    assert_eq!(first.words, vec![0x00000a00ff017b82, 0x000fe20000000800]);
    // The LDG is the twelfth instruction, at 0x00b0.
    let ldg = &k.instructions[11];
    assert_eq!(ldg.address, 0xb0);
    assert_eq!(k.index_at(0xb0), Some(11));
    assert_eq!(ldg.text, "LDG.E R0, desc[UR4][R2.64]");
    assert_eq!(ldg.words, vec![0x0000000402007981, 0x000ea4000c1e1900]);
    assert_eq!(ldg.line, 29);
    assert_eq!(ldg.column, 36);
    assert_eq!(ldg.source, None);
    let guarded = &k.instructions[13];
    assert_eq!(guarded.text, "@!P0 FADD R5, R0, 1");
}

#[test]
fn seed_kernel_for_sm_90_as_nvdisasm_prints_it() {
    let l = read_ok(&corpus_file("seed.sm_90.nvdisasm"));
    assert_eq!(l.format, Format::Nvdisasm);
    assert_eq!(l.arch.map(|a| a.sm), Some(90));
    let k = l.kernel(Some("divergent_kernel")).expect("by plain name");
    assert_eq!(k.name, "_Z16divergent_kernelPfi");
    assert_eq!(k.body().len(), 19);
    // nvdisasm names the branch target instead of printing its address.
    assert_eq!(k.instructions[19].text, "BRA `(.L_x_0)");
    let l0 = k.label(".L_x_0").expect(".L_x_0");
    assert_eq!((l0.index, l0.address), (19, 0x130));
    let l1 = k.label(".L_x_1").expect(".L_x_1");
    assert_eq!(l1.address, 0x70);
    // `.L_x_4` ends the code (`.size` is `.L_x_4 - _Z16...`): 32 * 16.
    let end = k.label(".L_x_4").expect(".L_x_4");
    assert_eq!((end.index, end.address), (32, 0x200));
    // The line table: the load belongs to source line 6
    // (`if (data[idx] > 0.5f) data[idx] *= 2.0f;`), the final EXIT to 9.
    let ldg = &k.instructions[11];
    assert_eq!(ldg.text, "LDG.E R0, desc[UR4][R2.64]");
    assert_eq!(
        ldg.source,
        Some(SourceLine {
            file: "seed.cu".into(),
            line: 6
        })
    );
    // A `//##` comment is printed only where the line changes: the
    // `@!P0 EXIT` at 0x00f0 is the closing brace of the `if (idx < n)`
    // (line 9), and the unguarded EXIT at 0x0120 still carries line 6.
    assert_eq!(k.instructions[15].text, "@!P0 EXIT");
    assert_eq!(k.instructions[15].source.as_ref().map(|s| s.line), Some(9));
    assert_eq!(k.instructions[18].text, "EXIT");
    assert_eq!(k.instructions[18].source.as_ref().map(|s| s.line), Some(6));
    assert_eq!(k.instructions[0].source.as_ref().map(|s| s.line), Some(3));
}

#[test]
fn seed_kernel_on_other_architectures() {
    // sm_75 reads the parameters straight from the constant bank: 16
    // instructions before `BRA 0x100`.
    let k75 = read_ok(&corpus_file("seed.sm_75.sass"));
    let k = k75.kernel(None).expect("one kernel");
    assert_eq!(k.body().len(), 16);
    assert_eq!(k.instructions[16].text, "BRA 0x100");
    assert_eq!(k.instructions[8].text, "LDG.E.SYS R0, [R2]");
    // sm_120 loads the stack pointer from 0x37c and inverts the if/else:
    // `@P0 FADD R5, R0, R0` is the taken side.
    let k120 = read_ok(&corpus_file("seed.sm_120.nvdisasm"));
    let k = k120.kernel(None).expect("one kernel");
    assert_eq!(k.instructions[0].text, "LDC R1, c[0x0][0x37c]");
    assert_eq!(k.instructions[13].text, "@P0 FADD R5, R0, R0");
    assert_eq!(k.body().len(), 19);
}

#[test]
fn two_kernels_need_a_choice_and_the_error_lists_them() {
    let l = read_ok(&corpus_file("two_kernels.sm_90.sass"));
    let err = l.kernel(None).expect_err("two kernels");
    assert!(err.message.contains("2 kernels"), "{}", err.message);
    assert!(
        err.message.contains("`_Z6negatePfi` (negate)"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("`_Z6squarePfi` (square)"),
        "{}",
        err.message
    );
    assert_eq!(
        err.expected.as_deref(),
        Some("`kernel:` naming one of them")
    );
    assert_eq!(
        l.kernel(Some("square")).map(|k| k.name.as_str()),
        Ok("_Z6squarePfi")
    );
    assert_eq!(
        l.kernel(Some("_Z6negatePfi")).map(|k| k.name.as_str()),
        Ok("_Z6negatePfi")
    );
    let err = l.kernel(Some("sqare")).expect_err("misspelt");
    assert_eq!(err.hint.as_deref(), Some("did you mean `square`?"));
    // An extern "C" kernel keeps its name unmangled.
    let c = read_ok(&corpus_file("extern_c.sm_80.nvdisasm"));
    let k = c.kernel(Some("fill")).expect("fill");
    assert_eq!((k.name.as_str(), k.plain_name.as_deref()), ("fill", None));
}

#[test]
fn a_called_device_function_stays_in_its_callers_code() {
    let l = read_ok(&corpus_file("device_call.sm_90.nvdisasm"));
    assert_eq!(l.kernels.len(), 1);
    let k = &l.kernels[0];
    let f = k
        .label("$_Z6callerPKfS0_Pf$_Z6smoothff")
        .expect("function symbol");
    assert_eq!(f.address, 0xf0);
    assert_eq!(
        k.instructions[10].text,
        "CALL.REL.NOINC `($_Z6callerPKfS0_Pf$_Z6smoothff)"
    );
}

#[test]
fn plain_names_of_mangled_symbols() {
    assert_eq!(
        plain_name("_Z16divergent_kernelPfi").as_deref(),
        Some("divergent_kernel")
    );
    assert_eq!(plain_name("_Z5saxpyifPKfPf").as_deref(), Some("saxpy"));
    assert_eq!(plain_name("fill"), None);
    assert_eq!(plain_name("_ZN4math3addEPf"), None);
    assert_eq!(plain_name("_Z99short"), None);
    assert_eq!(plain_name("_Z"), None);
}

#[test]
fn architecture_names() {
    assert_eq!(
        Arch::parse("sm_90"),
        Some(Arch {
            sm: 90,
            feature: None
        })
    );
    assert_eq!(
        Arch::parse("sm_90a"),
        Some(Arch {
            sm: 90,
            feature: Some('a')
        })
    );
    assert_eq!(
        Arch::parse("SM120"),
        Some(Arch {
            sm: 120,
            feature: None
        })
    );
    assert_eq!(Arch::parse("sm_9"), None);
    assert_eq!(Arch::parse("sm_90x"), None);
    assert_eq!(Arch::parse("compute_90"), None);
    assert_eq!(
        Arch {
            sm: 100,
            feature: Some('f')
        }
        .to_string(),
        "sm_100f"
    );
}

/// A `.cuasm` excerpt in CuAssembler's layout (its header keeps the ELF
/// flags; `0x5a055a` has low byte 0x5a = 90).
const CUASM: &str = "\
// --------------------- FileHeader --------------------------
\t.__elf_ident_osabi      51
\t.__elf_flags            0x5a055a \t\t// Flags, SM_90
// --------------------- .nv.constant0._Z1kPf --------------------------
\t.section\t.nv.constant0._Z1kPf,\"a\",@progbits
\t.align\t4
  .nv.constant0._Z1kPf:
  \t.zero\t\t536
// --------------------- .text._Z1kPf --------------------------
\t.section\t.text._Z1kPf,\"ax\",@progbits
\t.__section_name         0x32 \t// offset in .shstrtab
\t.sectioninfo\t@\"SHI_REGISTERS=8\"
\t.align\t128
        .global         _Z1kPf
        .type           _Z1kPf,@function
  _Z1kPf:
  .text._Z1kPf:
      [B------:R-:W-:Y:S08]         /*0000*/                   LDC R1, c[0x0][0x28] ;
      [B------:R-:W2:-:S02]         /*0010*/                   LDG.E R0, desc[UR4][R2.64] ;
  .L_x_0:
      [B--2---:R-:W-:Y:S05]         /*0020*/                   EXIT ;
      [B------:R-:W-:Y:S00]         /*0030*/                   BRA `(.L_x_0) ;
";

#[test]
fn a_cuasm_listing_with_written_control_codes() {
    let l = read_ok(CUASM);
    assert_eq!(l.format, Format::Cuasm);
    assert_eq!(l.arch.map(|a| a.sm), Some(90));
    let k = l.kernel(Some("k")).expect("k");
    assert_eq!(k.instructions.len(), 4);
    assert_eq!(k.instructions[1].text, "LDG.E R0, desc[UR4][R2.64]");
    assert_eq!(
        k.instructions[1].control.map(|c| c.to_string()).as_deref(),
        Some("[B------:R-:W2:-:S02]")
    );
    assert_eq!(k.instructions[2].control.map(|c| c.wait_mask), Some(0b100));
    assert!(k.instructions[1].words.is_empty());
    // `BRA` to `.L_x_0` is a branch back to the EXIT, not to itself.
    assert_eq!(k.padding_start, None);
}

#[test]
fn bare_instruction_lines_without_hex_or_headers() {
    let text = "\
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   EXIT ;
        /*0020*/                   BRA 0x20;
        /*0030*/                   NOP;
";
    let l = read_ok(text);
    assert_eq!(l.format, Format::Bare);
    assert_eq!(l.arch, None);
    let k = l.kernel(None).expect("one");
    assert_eq!(k.name, "");
    assert_eq!(k.body().len(), 2);
    assert!(
        k.instructions
            .iter()
            .all(|i| i.words.is_empty() && i.control.is_none())
    );
}

#[test]
fn errors_are_located_and_all_reported() {
    let text = "\
\tcode for sm_90
\t\tFunction : _Z1kPf
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*00g0*/                   EXIT ;
this is not a listing line
        /*0020*/                   mov R1, R2 ;
        /*0030*/                   @Q1 EXIT ;
\t.bogus 1
        /*0040*/                   NOP ; /* 0x12 3 */
        /*0000*/                   NOP ;
";
    let errs = read_errs(text);
    let at: Vec<(u32, u32)> = errs.iter().map(|e| (e.line, e.column)).collect();
    // Columns counted by hand: eight spaces, `/*` then the address.
    assert_eq!(
        at,
        vec![(4, 11), (5, 1), (6, 36), (7, 36), (8, 2), (9, 42), (10, 9)],
        "{errs:?}"
    );
    assert_eq!(errs[0].message, "`00g0` is not a hexadecimal address");
    assert_eq!(errs[1].message, "cannot read `this` as a listing line");
    assert!(errs[1].hint.is_some());
    assert_eq!(errs[2].message, "`mov` is not an opcode");
    assert_eq!(errs[3].message, "`@Q1` is not a guard predicate");
    assert_eq!(errs[4].message, "unknown directive `.bogus`");
    assert_eq!(errs[5].message, "cannot read the encoded word");
    assert_eq!(errs[6].message, "address 0x0000 does not follow 0x0000");
}

#[test]
fn two_architectures_in_one_listing_are_refused() {
    let text = "\tcode for sm_80\n\tcode for sm_90\n";
    let errs = read_errs(text);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].line, 2);
    assert!(
        errs[0].message.contains("sm_80 (line 1) and sm_90"),
        "{}",
        errs[0].message
    );
}

#[test]
fn truncated_and_mangled_corpus_files_never_panic() {
    // Every listing cut at a spread of points, and with one byte replaced
    // at each of those points by characters that matter to the reader.
    for (name, text) in corpus_listings().iter().step_by(7) {
        let cuts: Vec<usize> = (0..text.len())
            .step_by(97)
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &cut in &cuts {
            let _ = read(&text[..cut]);
            for c in ["/", "*", ":", "[", "\"", "@", ".", "x", "\n", "é"] {
                let mut s = text[..cut].to_string();
                s.push_str(c);
                s.push_str(text.get(cut + 1..).unwrap_or(""));
                let _ = read(&s);
            }
        }
        let _ = name;
    }
}

mod properties {
    use super::super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_text_never_panics(s in "[ \\t/*0-9a-fxA-Z_.:;,@!\\[\\]`()\"#\\n-]{0,200}") {
            let _ = read(&s);
        }

        #[test]
        fn arbitrary_unicode_never_panics(s in "\\PC{0,120}") {
            let _ = read(&s);
        }
    }
}

/// The registers an operand list names (`R2.64` names R2; `UR4` is not R4).
fn registers_named(operands: &str) -> Vec<String> {
    operands
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| t.len() > 1 && t.starts_with('R') && t[1..].chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// Splits `@!P0 LDG.E R0, [R2]` into opcode `LDG.E` and operands.
fn opcode_and_operands(text: &str) -> (&str, &str) {
    let t = if text.starts_with('@') {
        text.split_once(' ').map_or("", |(_, r)| r.trim_start())
    } else {
        text
    };
    t.split_once(' ').unwrap_or((t, ""))
}

/// The corpus-wide check of the decoded fields against the code itself:
/// a variable-latency producer names a write scoreboard, and before any
/// later instruction touches its destination register (reads it, or
/// overwrites it), some instruction from the producer's successor up to
/// and including that one waits on that scoreboard. If the field order or
/// the write barrier's position were wrong, loads would appear to be read
/// unguarded. (Address order is used; nvcc places the wait before the
/// first use in address order in every listing of the corpus.)
#[test]
fn every_load_result_is_waited_on_before_it_is_used() {
    let mut checked = 0;
    for (name, text) in corpus_listings()
        .iter()
        .filter(|(n, _)| n.ends_with(".sass"))
    {
        let l = read_ok(text);
        for k in &l.kernels {
            let body = k.body();
            for (i, ins) in body.iter().enumerate() {
                let (op, operands) = opcode_and_operands(&ins.text);
                let base = op.split('.').next().unwrap_or("");
                if !matches!(
                    base,
                    "LDG" | "LDS" | "LDL" | "LDC" | "MUFU" | "S2R" | "SHFL" | "ATOMS"
                ) {
                    continue;
                }
                let Some(sb) = ins.control.and_then(|c| c.write_barrier) else {
                    continue;
                };
                let Some(dest) = registers_named(operands.split(',').next().unwrap_or(""))
                    .into_iter()
                    .next()
                else {
                    continue;
                };
                let mut waited = false;
                for later in &body[i + 1..] {
                    waited |= later.control.is_some_and(|c| c.waits_on(sb));
                    let (_, ops) = opcode_and_operands(&later.text);
                    if registers_named(ops).contains(&dest) {
                        assert!(
                            waited,
                            "{name}: {} at {:#06x} reads {dest} of `{}` ({:#06x}, SB{sb}) unwaited",
                            later.text, later.address, ins.text, ins.address
                        );
                        checked += 1;
                        break;
                    }
                }
            }
        }
    }
    // Hundreds of producer-consumer pairs across the corpus (counted by
    // this test; the exact number moves with the corpus).
    assert!(checked > 500, "only {checked} pairs checked");
}

/// Every scoreboard a wait mask names is one some instruction of the same
/// kernel sets, as a write or a read barrier: a wait on a scoreboard no
/// instruction sets would mean the wait mask sits at the wrong bits.
#[test]
fn every_waited_scoreboard_is_set_somewhere() {
    for (name, text) in corpus_listings() {
        let l = read_ok(&text);
        for k in &l.kernels {
            let mut set = 0u8;
            for c in k.instructions.iter().filter_map(|i| i.control) {
                for b in [c.write_barrier, c.read_barrier].into_iter().flatten() {
                    set |= 1 << b;
                }
            }
            for ins in &k.instructions {
                let wait = ins.control.map_or(0, |c| c.wait_mask);
                assert_eq!(
                    wait & !set,
                    0,
                    "{name}: {} waits on an unset scoreboard",
                    ins.text
                );
            }
        }
    }
}

#[test]
fn columns_ignore_trailing_blanks() {
    // `code for` with a bad name and three trailing spaces: the name starts
    // at column 11 (tab, then `code for ` is nine characters).
    let errs = read_errs("\tcode for sm_9x   \n");
    assert_eq!((errs[0].line, errs[0].column, errs[0].len), (1, 11, 5));
    // A lone encoded word with text after it, trailing blanks after that.
    let errs = read_errs("  /* 0x0000000000000000 */ junk  \n");
    assert_eq!((errs[0].column, errs[0].len), (28, 4));
}

#[test]
fn indirect_branches_are_given_their_commas_in_place() {
    use super::assemble::indirect_operands;
    // As cuobjdump and nvdisasm print them; every other column is kept.
    let cases = [
        ("RET.REL.NODEC R2 0x0", "k", "RET.REL.NODEC R2,0x0"),
        (
            "RET.REL.NODEC R2 `(_Z6callerPKfS0_Pf)",
            "_Z6callerPKfS0_Pf",
            "RET.REL.NODEC R2,0x0                 ",
        ),
        (
            "BRX R2 -0x160 (*\"BRANCH_TARGETS .L_x_2,.L_x_8\"*)",
            "k",
            "BRX R2,-0x160 ,                 .L_x_2,.L_x_8   ",
        ),
        ("@P0 BRX R2 -0x10", "k", "@P0 BRX R2,-0x10"),
        // Already in the assembler's form, or another opcode: unchanged.
        ("RET.REL.NODEC R2, 0x0", "k", "RET.REL.NODEC R2, 0x0"),
        ("BRA 0x10", "k", "BRA 0x10"),
    ];
    for (text, kernel, want) in cases {
        let got = indirect_operands(text, kernel);
        assert_eq!(got, want);
        assert_eq!(got.len(), text.len(), "{text}");
    }
}

/// `nvdisasm` without `-c` prints each kernel's `.nv.constant2` section;
/// its bytes are the kernel's bank 2 (the section below is the one
/// `nvdisasm` printed for switch_case.cu on sm_100, where
/// `cuobjdump -elf` shows the words 0x250, 0x160, 0x240, 0x200, ...).
#[test]
fn constant_bank_2_is_read_from_its_section() {
    let text = "\
\t.section\t.nv.constant2._Z1kPf,\"a\",@progbits
\t.sectionflags\t@\"\"
\t.align\t4
.nv.constant.optimizer._Z1kPf:
        /*0000*/ \t.byte\t0x50, 0x02, 0x00, 0x00, 0x60, 0x01, 0x00, 0x00, 0x40, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00
        /*0010*/ \t.byte\t0x20, 0x02
\t.section\t.text._Z1kPf,\"ax\",@progbits
\t.align\t128
        .global         _Z1kPf
  _Z1kPf:
        /*0000*/                   EXIT ;
        /*0010*/                   BRA 0x10;
";
    let l = read_ok(text);
    assert_eq!(l.kernels.len(), 1);
    assert_eq!(l.constant2.len(), 1);
    let (name, bytes) = &l.constant2[0];
    assert_eq!(name, "_Z1kPf");
    assert_eq!(bytes.len(), 18);
    assert_eq!(&bytes[..4], &[0x50, 0x02, 0, 0]);
    assert_eq!(&bytes[16..], &[0x20, 0x02]);
    // A byte that is not one is an error at its line.
    let errs = read_errs(&text.replace("0x60, 0x01", "0x60, 0x1zz"));
    assert_eq!(errs[0].line, 5, "{}", errs[0]);
    assert!(errs[0].message.contains("0x1zz"), "{}", errs[0]);
}
