//! Listings as the CUDA tools print them, loaded as `program:`: the kernel
//! assembles at its listing lines, runs with the control codes its hex
//! words encode, and `check` reports every error of the file.

use std::path::{Path, PathBuf};
use std::process::Output;

use warpstep::scenario::{Origin, Scenario};

mod support;

fn warpstep<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    support::warpstep_output(args)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("listing_load")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `program: |` holding `listing`, indented by two.
fn scenario_with(head: &str, listing: &str) -> String {
    let mut s = String::from(head);
    s.push_str("program: |\n");
    for l in listing.lines() {
        s.push_str("  ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A cuobjdump-style sm_90 listing, trimmed by hand to opcodes the
/// simulator models. The high words encode the control codes written in
/// the comments on the right (fields per src/asm/listing/control.rs: stall
/// in bits 41..44, yield 45 (0 = set), write barrier 46..48, read barrier
/// 49..51, wait mask 52..57; 7 = no barrier).
const SMALL: &str = "\
\tcode for sm_90
\t\tFunction : _Z4testPf
\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"
        /*0000*/                   S2R R0, SR_TID.X ;                   /* 0x0000000000007919 */
                                                                       /* 0x000fe80000002100 */
        /*0010*/                   MOV R3, 0x7f00 ;                     /* 0x00007f0000037802 */
                                                                       /* 0x000fe20000000f00 */
        /*0020*/                   IMAD R2, R0, 0x4, c[0x0][0x160] ;    /* 0x0000580000027a24 */
                                                                       /* 0x000fe800078e02ff */
        /*0030*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;  /* 0x000000100000780c */
                                                                       /* 0x000fe80003f06270 */
        /*0040*/               @P0 EXIT ;                               /* 0x000000000000094d */
                                                                       /* 0x000fe20003800000 */
        /*0050*/                   LDG.E R5, desc[UR4][R2.64] ;         /* 0x0000000402057981 */
                                                                       /* 0x000ea2000c1e1900 */
        /*0060*/                   FADD R5, R5, 1 ;                     /* 0x3f80000005057421 */
                                                                       /* 0x004fe80000000000 */
        /*0070*/                   STG.E desc[UR4][R2.64], R5 ;         /* 0x0000000502007986 */
                                                                       /* 0x000fe2000c101904 */
        /*0080*/                   EXIT ;                               /* 0x000000000000794d */
                                                                       /* 0x000fea0003800000 */
        /*0090*/                   BRA 0x90 ;                           /* 0xfffffffc00fc7947 */
                                                                       /* 0x000fe0000383ffff */
        /*00a0*/                   NOP ;                                /* 0x0000000000007918 */
                                                                       /* 0x000fe00000000000 */
        /*00b0*/                   NOP ;                                /* 0x0000000000007918 */
                                                                       /* 0x000fe00000000000 */
\t\t..........
";

const SMALL_HEAD: &str = "name: a trimmed sm_90 listing
launch:
  threads: 32
memory:
  data: {type: f32, len: 32, init: \"i\"}
constants:
  0x160: data
";

fn load(text: &str) -> Scenario {
    match Scenario::from_text(text, Origin::File("t.yaml".into())) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn load_err(text: &str) -> String {
    match Scenario::from_text(text, Origin::File("t.yaml".into())) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_listing_loads_with_its_decoded_control_codes() {
    let sc = load(&scenario_with(SMALL_HEAD, SMALL));
    let p = &sc.program;
    // 10 instructions to the self-branch at 0x90; the 2 NOPs after it are
    // padding, left out.
    assert_eq!(p.instrs.len(), 10);
    assert_eq!(p.arch, Some(90));
    let info = sc.listing.as_ref().expect("a listing");
    assert_eq!(info.kernel, "_Z4testPf");
    assert_eq!(info.padding, 2);
    assert_eq!(info.decoded, 10);
    assert!(p.instrs.iter().all(|i| i.explicit_control));
    // The codes are the encoded ones, not derived: the S2R stalls 4 and
    // sets no scoreboard (a derived code would not differ there, but the
    // LDG's W2 and the FADD's wait on SB2 would be W0 / B0 derived).
    let shown: Vec<String> = p.instrs.iter().map(|i| i.control.to_string()).collect();
    assert_eq!(shown[0], "[B------:R-:W-:-:S04]");
    assert_eq!(shown[5], "[B------:R-:W2:-:S01]");
    assert_eq!(shown[6], "[B--2---:R-:W-:-:S04]");
    assert_eq!(shown[8], "[B------:R-:W-:-:S05]");
    // Listing lines: the scenario's program starts at file line 9, the
    // listing's S2R is its line 4 (after the three header lines).
    assert_eq!(p.instrs[0].line, 4);
    assert_eq!(p.instrs[5].line, 14);
    assert_eq!(p.instrs[5].text, "LDG.E R5, desc[UR4][R2.64]");
    // `BRA 0x90` branches to itself: instruction 9.
    assert_eq!(
        p.instrs[9].op,
        warpstep::asm::ir::Op::Bra {
            target: 9,
            cond: warpstep::asm::ir::PredSrc::TRUE
        }
    );
}

#[test]
fn a_listing_runs_with_the_cycles_its_codes_give() {
    let dir = scratch("run");
    let path = dir.join("small.yaml");
    std::fs::write(&path, scenario_with(SMALL_HEAD, SMALL)).expect("write");
    let o = warpstep(&[
        "run".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    // By hand, from the stall counts and the 400-cycle global latency:
    // S2R 0 (S04), MOV 4 (S01), IMAD 5 (S04), ISETP 9 (S04), @P0 EXIT 13
    // (S01; lanes 16..31 leave), LDG 14 (S01, W2: 16 lanes, one 128-byte
    // line, done at 414), FADD waits on SB2 until 414 (S04), STG 418
    // (S01), EXIT 419: 9 issued.
    assert_eq!(r["issued"], 9, "{r}");
    assert_eq!(r["cycles"], 420, "{r}");
    assert_eq!(r["memory"]["global_requests"], 2, "{r}");
}

fn kernel_file(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_seed_listing_s_load_and_its_consumer_share_a_scoreboard() {
    // tests/kernels/seed.sm_90.nvdisasm, as nvdisasm -hex printed it:
    //   /*00b0*/ LDG.E R0, desc[UR4][R2.64] ;       high word 0x000ea4000c1e1900
    //   /*00c0*/ FSETP.GT.AND P0, PT, R0, 0.5, PT ; high word 0x004fda0003f04000
    // By hand: 0x000ea4 >> 1 (bit 41 of the word is bit 1 of its top 24
    // bits) = 0x752: stall 2, yield bit 1 (not set), write barrier
    // (0x752 >> 5) & 7 = 2, read barrier 7 (none), wait mask 0. And
    // 0x004fda >> 1 = 0x27ed: wait mask (0x27ed >> 11) & 0x3f = 0b000100,
    // scoreboard 2, yield bit 0 (set), stall 13. The FSETP reads R0, the LDG's result.
    let text = kernel_file("seed.sm_90.nvdisasm");
    let l = warpstep::asm::listing::read(&text).expect("the listing reads");
    let k = l.kernel(Some("divergent_kernel")).expect("the kernel");
    let ldg = k
        .instructions
        .iter()
        .find(|i| i.address == 0xb0)
        .expect("0xb0");
    let fsetp = k
        .instructions
        .iter()
        .find(|i| i.address == 0xc0)
        .expect("0xc0");
    assert!(ldg.text.starts_with("LDG.E R0,"), "{}", ldg.text);
    assert!(
        fsetp.text.starts_with("FSETP.GT.AND P0, PT, R0,"),
        "{}",
        fsetp.text
    );
    let (lc, fc) = (
        ldg.control.expect("decoded"),
        fsetp.control.expect("decoded"),
    );
    assert_eq!(lc.write_barrier, Some(2));
    assert_eq!(lc.read_barrier, None);
    assert_eq!(lc.stall, 2);
    assert_eq!(fc.wait_mask, 0b000100);
    assert!(fc.waits_on(2));
    assert_eq!(fc.stall, 13);
    assert!(fc.yield_);
    // In the assembler's notation, as `check --controls` shows them.
    assert_eq!(lc.to_ir().to_string(), "[B------:R-:W2:-:S02]");
    assert_eq!(fc.to_ir().to_string(), "[B--2---:R-:W-:Y:S13]");
}

/// The `check` of `listing` in a scenario with `head`: exit code, stdout,
/// stderr.
fn check(name: &str, head: &str, listing: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = scratch(name);
    let path = dir.join("s.yaml");
    std::fs::write(&path, scenario_with(head, listing)).expect("write");
    let mut args: Vec<&std::ffi::OsStr> = vec!["check".as_ref()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    args.push(path.as_os_str());
    let o = warpstep(&args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn check_shows_a_listing_s_codes_at_its_addresses() {
    let (code, out, err) = check("controls", SMALL_HEAD, SMALL, &["--controls"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("listing: _Z4testPf for sm_90, 10 instructions (2 unreachable"),
        "{out}"
    );
    assert!(
        out.contains("controls: from the listing's hex words"),
        "{out}"
    );
    // The codes of the high words above, unmarked (not derived).
    for line in [
        "/*0050*/ [B------:R-:W2:-:S01]  LDG.E R5, desc[UR4][R2.64]",
        "/*0060*/ [B--2---:R-:W-:-:S04]  FADD R5, R5, 1",
        "/*0090*/ [B------:R-:W-:-:S00]  BRA 0x90",
    ] {
        assert!(out.contains(line), "no `{line}` in\n{out}");
    }
}

#[test]
fn a_listing_without_hex_words_runs_derived_codes_and_check_says_so() {
    // The same listing without its encoded words.
    let bare: String = SMALL
        .lines()
        .filter(|l| !l.trim_start().starts_with("/* 0x"))
        .map(|l| match l.find("/* 0x") {
            Some(i) => l[..i].trim_end().to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let (code, out, err) = check("derived", SMALL_HEAD, &bare, &["--controls"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("controls: derived (the listing has no hex words)"),
        "{out}"
    );
    // Derived, so marked `*`: the LDG takes scoreboard 0 (the first one
    // round robin), the FADD waits on it.
    assert!(
        out.contains("/*0050*/ [B------:R-:W0:-:S01]* LDG.E"),
        "{out}"
    );
    assert!(
        out.contains("/*0060*/ [B0-----:R-:W-:-:S04]* FADD"),
        "{out}"
    );
}

#[test]
fn check_lists_every_unsupported_opcode_of_a_listing() {
    // Two opcodes the simulator lacks put in for two it has: `P2R` (the
    // reverse of R2P) and `JCAL` (the pre-Volta call).
    let text = kernel_file("special_funcs.sm_100.sass")
        .replace("R2P PR, R10, 0x3", "P2R R10, PR, R10, 0x3")
        .replace("CALL.REL.NOINC 0x960", "JCAL 0x960");
    let head = "name: call\nlaunch:\n  threads: 32\n";
    let (code, out, err) = check("call", head, &text, &[]);
    assert_eq!(code, 2, "{out}{err}");
    // Independent of the error list: the instruction lines of the listing
    // whose opcode is not in the simulator's table, at their file lines
    // (listing line k is file line 4 + k: `name`, `launch`, `threads` and
    // `program: |` come first).
    let expected: Vec<String> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start().strip_prefix("/*")?;
            let body = t[t.find("*/")? + 2..].trim_start();
            let body = body.split("/*").next()?.trim().trim_end_matches(';').trim();
            let op_text = if body.starts_with('@') {
                body.split_whitespace().nth(1)?
            } else {
                body.split_whitespace().next()?
            };
            let op = op_text.split('.').next()?.trim_end_matches(';');
            (!warpstep::isa::OPCODES.contains(&op)).then(|| {
                format!(
                    "unsupported opcode `{op}` in `program`\n   --> {}:{}:",
                    "s.yaml",
                    i + 5
                )
            })
        })
        .collect();
    assert!(
        !expected.is_empty(),
        "the listing has opcodes the simulator lacks (P2R, JCAL)"
    );
    for e in &expected {
        let (msg, at) = e.split_once('\n').expect("two lines");
        let found = err.split("error: ").any(|block| {
            block.starts_with(msg) && block.contains(at.trim().trim_start_matches("--> "))
        });
        assert!(found, "no `{msg}` at {at} in\n{err}");
    }
    let reported = err.matches("error: unsupported opcode").count();
    assert_eq!(reported, expected.len(), "{err}");
}

#[test]
fn several_kernels_need_kernel_and_the_error_lists_them() {
    let text = kernel_file("two_kernels.sm_90.sass");
    let head = "name: two\nlaunch:\n  threads: 32\n";
    let (code, _, err) = check("two", head, &text, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "the listing holds 2 kernels: `_Z6squarePfi` (square), `_Z6negatePfi` (negate)"
        ),
        "{err}"
    );
    // A misspelt name: the error is at `kernel:` (file line 4) and suggests.
    let (code, _, err) = check("two-bad", &format!("{head}kernel: negat\n"), &text, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("no kernel `negat` in the listing"), "{err}");
    assert!(err.contains("s.yaml:4:9"), "{err}");
    assert!(err.contains("did you mean `negate`?"), "{err}");
}

#[test]
fn kernel_selects_by_plain_or_mangled_name() {
    // Two kernels of supported opcodes; each exits at a different point.
    let two = "\
\tcode for sm_90
\t\tFunction : _Z1av
        /*0000*/                   MOV R1, 0x1 ;
        /*0010*/                   EXIT ;
\t\t..........
\t\tFunction : _Z1bv
        /*0000*/                   MOV R1, 0x2 ;
        /*0010*/                   MOV R2, 0x3 ;
        /*0020*/                   EXIT ;
\t\t..........
";
    let head = "name: two\nlaunch:\n  threads: 32\n";
    let a = load(&scenario_with(&format!("{head}kernel: a\n"), two));
    assert_eq!(a.program.instrs.len(), 2);
    let b = load(&scenario_with(&format!("{head}kernel: _Z1bv\n"), two));
    assert_eq!(b.program.instrs.len(), 3);
    // Listing line 8 is b's second MOV.
    assert_eq!(b.program.instrs[1].line, 8);
}

#[test]
fn arch_from_the_listing_and_the_key_must_agree() {
    let head = format!("{SMALL_HEAD}arch: sm_80\n");
    let e = load_err(&scenario_with(&head, SMALL));
    assert!(
        e.contains("`arch: sm_80` but the listing is code for sm_90"),
        "{e}"
    );
    assert!(e.contains("t.yaml:8:7"), "{e}");
    // Agreeing is fine.
    let ok = load(&scenario_with(&format!("{SMALL_HEAD}arch: sm_90\n"), SMALL));
    assert_eq!(ok.program.arch, Some(90));
}

#[test]
fn pre_volta_listings_are_refused_naming_the_architecture() {
    let old = "\
\tcode for sm_61
\t\tFunction : _Z1av
        /*0008*/                   MOV R1, c[0x0][0x20] ;
        /*0010*/                   EXIT ;
";
    let e = load_err(&scenario_with("name: old\n", old));
    assert!(
        e.contains(
            "sm_61 listings are not supported: warpstep runs sm_70 and newer \
             (Volta's 128-bit encoding with embedded control codes)"
        ),
        "{e}"
    );
    // At the listing's `code for sm_61`, program line 1 = file line 3.
    assert!(e.contains("t.yaml:3:"), "{e}");
}

#[test]
fn errors_point_at_the_listing_line_in_the_file() {
    // A bad operand on the listing's sixth line (the MOV; program line k
    // is file line 8 + k), at the first extra operand (column 50).
    let bad = SMALL.replace("MOV R3, 0x7f00 ;  ", "MOV R3, R3, R3, R3;");
    let e = load_err(&scenario_with(SMALL_HEAD, &bad));
    assert!(e.contains("too many operands for MOV"), "{e}");
    assert!(e.contains("t.yaml:14:50"), "{e}");
}
