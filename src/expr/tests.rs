//! Expression tests; expected values are worked out by hand in the comments.

use super::*;
use proptest::prelude::*;

fn inputs_with_buffer() -> Vars {
    Vars::inputs().with_name("data", 0x10_0000)
}

fn thread(tid: u64) -> Env {
    // 64 threads in blocks of 32, warp width 32.
    Env::thread(&ThreadCtx {
        tid,
        lane: (tid % 32) as u32,
        warp: tid / 32,
        block: tid / 32,
        ntid: 32,
        nthreads: 64,
    })
}

fn eval_at(src: &str, tid: u64) -> Result<Value, EvalError> {
    let e = Expr::parse(src, &inputs_with_buffer()).expect("parses");
    e.eval(&thread(tid))
}

fn int(src: &str) -> i64 {
    match eval_at(src, 0) {
        Ok(Value::Int(v)) => v,
        other => panic!("{src}: expected an integer, got {other:?}"),
    }
}

fn float(src: &str) -> f64 {
    match eval_at(src, 0) {
        Ok(Value::Float(v)) => v,
        other => panic!("{src}: expected a float, got {other:?}"),
    }
}

fn parse_err(src: &str, vars: &Vars) -> ExprError {
    match Expr::parse(src, vars) {
        Err(e) => e,
        Ok(e) => panic!("{src}: expected a parse error, got {e:?}"),
    }
}

#[test]
fn precedence_follows_c() {
    assert_eq!(int("1 + 2 * 3 == 7"), 1); // 2*3 first, then +, then ==
    assert_eq!(int("1 + 2 * 3"), 7);
    assert_eq!(int("(1 + 2) * 3"), 9);
    assert_eq!(int("10 - 4 - 3"), 3); // left associative: (10-4)-3
    assert_eq!(int("2 * 3 % 4"), 2); // (2*3)%4 = 6%4
    assert_eq!(int("2 + 3 << 1"), 10); // shift binds looser than +: 5<<1
    assert_eq!(int("1 | 2 ^ 3 & 4"), 3); // 3&4=0, 2^0=2, 1|2=3
    assert_eq!(int("1 < 2 == 1"), 1); // (1<2)==1
    assert_eq!(int("1 || 0 && 0"), 1); // 1 || (0 && 0)
    assert_eq!(int("-2 * 3"), -6);
    assert_eq!(int("!0 + 1"), 2); // (!0)+1
    assert_eq!(int("~0"), -1);
    assert_eq!(int("- -5"), 5);
    assert_eq!(int("1--1"), 2);
}

#[test]
fn ternary_is_right_associative_and_lazy() {
    assert_eq!(eval_at("tid % 2 ? 10 : 20", 3), Ok(Value::Int(10)));
    assert_eq!(eval_at("tid % 2 ? 10 : 20", 4), Ok(Value::Int(20)));
    assert_eq!(int("0 ? 1 : 0 ? 2 : 3"), 3); // 0 ? 1 : (0 ? 2 : 3)
    assert_eq!(int("1 ? 0 ? 4 : 5 : 6"), 5); // 1 ? (0 ? 4 : 5) : 6
    // The untaken side is not evaluated, so its division by zero is harmless.
    assert_eq!(
        eval_at("tid == 3 ? 0 : 100 / (tid - 3)", 3),
        Ok(Value::Int(0))
    );
    assert_eq!(
        eval_at("tid != 3 && 1 / (tid - 3) > 0", 3),
        Ok(Value::Int(0))
    );
    assert_eq!(
        eval_at("tid == 3 || 1 / (tid - 3) > 0", 3),
        Ok(Value::Int(1))
    );
}

#[test]
fn ints_and_floats() {
    assert_eq!(eval_at("1 + 0.5", 0), Ok(Value::Float(1.5)));
    assert_eq!(int("7 / 2"), 3);
    assert_eq!(float("7.0 / 2"), 3.5);
    assert_eq!(int("-7 / 2"), -3); // truncates toward zero
    assert_eq!(int("-7 % 2"), -1); // sign of the dividend
    assert_eq!(int("1 == 1.0"), 1);
    assert_eq!(int("3 > 2.5"), 1);
    assert_eq!(float("1e-3"), 0.001);
    assert_eq!(float(".5"), 0.5);
    assert_eq!(float("2.5E+1"), 25.0);
    assert_eq!(int("0x1F"), 31);
    assert_eq!(int("true + true"), 2);
    assert_eq!(int("false"), 0);
    assert_eq!(int("!1.5"), 0);
}

#[test]
fn integers_wrap() {
    assert_eq!(int("0x7FFFFFFFFFFFFFFF + 1"), i64::MIN);
    assert_eq!(int("0xFFFFFFFFFFFFFFFF"), -1);
    // -(2^63) wraps to itself; MIN / -1 (2^63) is refused, not wrapped.
    let err = eval_at("-9223372036854775808 / -1", 0).unwrap_err();
    assert!(err.message.contains("overflows"), "{}", err.message);
    assert_eq!(int("-9223372036854775807 / -1"), i64::MAX);
    assert_eq!(int("0x100000000 * 0x100000000"), 0); // 2^64 wraps to 0
}

#[test]
fn shifts_take_amounts_0_to_63_only() {
    assert_eq!(int("1 << 63"), i64::MIN); // bit 63
    for src in ["1 << 64", "1 << 99999", "1 << -1", "8 >> 64"] {
        let err = eval_at(src, 0).unwrap_err();
        assert!(
            err.message.contains("outside 0 to 63"),
            "{src}: {}",
            err.message
        );
        // The operator is underlined, as for a float operand: at 2, 2 long.
        assert_eq!((err.offset, err.len), (2, 2), "{src}");
    }
    assert_eq!(int("-16 >> 2"), -4); // arithmetic shift
    assert_eq!(int("0xF0 >> 4"), 0xF);
    let err = eval_at("1.5 << 1", 0).unwrap_err();
    assert_eq!((err.offset, err.len), (4, 2));
    assert!(err.message.contains("`<<` needs integer operands"));
    assert!(eval_at("~0.5", 0).is_err());
    assert!(eval_at("1 & 2.0", 0).is_err());
}

#[test]
fn division_by_zero_is_an_error() {
    let err = eval_at("1 / (tid - 3)", 3).unwrap_err();
    assert_eq!(err.message, "division by zero");
    assert_eq!((err.offset, err.len), (2, 1));
    assert!(err.hint.is_some());
    assert_eq!(eval_at("1 / (tid - 3)", 4), Ok(Value::Int(1)));
    assert_eq!(
        eval_at("5 % 0", 0).unwrap_err().message,
        "remainder by zero"
    );
    assert_eq!(
        eval_at("1.0 / 0", 0).unwrap_err().message,
        "division by zero"
    );
    assert!(eval_at("1.5 % 0.0", 0).is_err());
}

#[test]
fn names_resolve_per_context() {
    // `data` is a constant: its base address.
    assert_eq!(eval_at("data + 4 * tid", 2), Ok(Value::Int(0x10_0008)));
    assert_eq!(eval_at("lane < 16", 17), Ok(Value::Int(0)));
    assert_eq!(eval_at("warp * 100 + lane", 33), Ok(Value::Int(101)));
    // 64 threads / 32 per block = 2 blocks.
    assert_eq!(eval_at("nblocks * ntid == nthreads", 0), Ok(Value::Int(1)));
    let init = Expr::parse("i * 2", &Vars::buffer_init()).unwrap();
    assert_eq!(init.eval(&Env::new().with(Var::I, 21)), Ok(Value::Int(42)));
    assert!(init.uses(Var::I) && !init.uses(Var::Tid));
    let c = Expr::parse("ntid * 2 + 1", &Vars::constants()).unwrap();
    assert_eq!(c.eval(&Env::launch(256, 1024)), Ok(Value::Int(513)));
    assert!(Expr::parse("42", &Vars::constants()).unwrap().is_constant());
}

#[test]
fn unknown_identifier_has_position_and_hint() {
    let e = parse_err("tdi + 1", &Vars::inputs());
    assert_eq!((e.offset, e.len), (0, 3));
    assert_eq!(e.message, "unknown name `tdi`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `tid`?"));
    let e = parse_err("lane + dta", &inputs_with_buffer());
    assert_eq!((e.offset, e.len), (7, 3));
    assert_eq!(e.hint.as_deref(), Some("did you mean `data`?"));
    let e = parse_err("i + 1", &Vars::inputs());
    assert_eq!(e.message, "`i` is not available in an input");
    let e = parse_err("tid", &Vars::buffer_init());
    assert_eq!(e.message, "`tid` is not available in a buffer init");
    assert_eq!(
        e.expected.as_deref(),
        Some("one of ntid, nthreads, nblocks, i, a buffer name or a number")
    );
    let e = parse_err("rnd(3)", &Vars::inputs());
    assert_eq!(e.message, "unknown function `rnd`");
    assert_eq!(e.hint.as_deref(), Some("did you mean `rand`?"));
}

#[test]
fn syntax_errors_point_at_the_problem() {
    let vars = Vars::inputs();
    let e = parse_err("1 +", &vars);
    assert_eq!((e.offset, e.len), (3, 0));
    let e = parse_err("(1 + 2", &vars);
    assert_eq!((e.offset, e.message.as_str()), (6, "unclosed `(`"));
    assert_eq!(e.hint.as_deref(), Some("the `(` at offset 0 is not closed"));
    let e = parse_err("1 2", &vars);
    assert_eq!(
        (e.offset, e.len, e.message.as_str()),
        (2, 1, "unexpected `2`")
    );
    let e = parse_err("3 $ 4", &vars);
    assert_eq!((e.offset, e.len), (2, 1));
    let e = parse_err("1 ? 2", &vars);
    assert_eq!((e.offset, e.message.as_str()), (5, "expected `:`"));
    let e = parse_err("tid = 1", &vars);
    assert_eq!(e.hint.as_deref(), Some("compare with `==`"));
    assert_eq!(parse_err("1 + 2)", &vars).message, "unmatched `)`");
    assert_eq!(parse_err("0x", &vars).offset, 0);
    assert_eq!(parse_err("12ab", &vars).message, "invalid number `12ab`");
    assert_eq!(parse_err("", &vars).message, "empty expression");
    assert_eq!(parse_err("rand", &vars).message, "`rand` needs a seed");
    assert_eq!(parse_err("99999999999999999999", &vars).len, 20);
    // Offsets count characters, not bytes.
    let e = parse_err("1 + é", &vars);
    assert_eq!((e.offset, e.len), (4, 1));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    assert!(
        parse_err(&deep, &Vars::inputs())
            .message
            .contains("nested too deeply")
    );
    let long_chain = vec!["1"; 1500].join("+");
    assert!(
        parse_err(&long_chain, &Vars::inputs())
            .message
            .contains("too complex")
    );
    // Within limits both work: 48 levels of parentheses, a 400-term sum.
    let ok = format!("{}1{}", "(".repeat(48), ")".repeat(48));
    assert_eq!(int(&ok), 1);
    assert_eq!(int(&vec!["1"; 400].join("+")), 400);
}

#[test]
fn rand_is_a_fixed_function_of_seed_and_index() {
    // rand(7) at i = 0, by the definition on `rand_unit`:
    //   x = 7 * 0x9E3779B97F4A7C15 mod 2^64 = 0x538454127B096493 (^ 0)
    //   z = splitmix64 finaliser(x)          = 0x2C829ABE1F4532E1
    //   z >> 11 = 1566062512695462;  / 2^53  = 0.17386786595968284
    assert_eq!(rand_unit(7, 0), 0.17386786595968284);
    // i = 1: x = 0x538454127B096492, z = 0xF14F2CF802083FA5,
    //   z >> 11 = 8490315493163271 -> 0.9426143746841554
    assert_eq!(rand_unit(7, 1), 0.9426143746841554);
    let init = Expr::parse("rand(7)", &Vars::buffer_init()).unwrap();
    assert_eq!(
        init.eval(&Env::new().with(Var::I, 1)),
        Ok(Value::Float(0.9426143746841554))
    );
    // Inputs index by tid: thread 3 -> 0.47801827722159895.
    assert_eq!(eval_at("rand(7)", 3), Ok(Value::Float(0.47801827722159895)));
    // Constants index by 0.
    let c = Expr::parse("rand(7)", &Vars::constants()).unwrap();
    assert_eq!(c.eval(&Env::new()), Ok(Value::Float(0.17386786595968284)));
    assert!(eval_at("rand(1.5)", 0).is_err());
}

proptest! {
    #[test]
    fn parsing_random_text_never_panics(src in ".{0,60}") {
        if let Ok(e) = Expr::parse(&src, &inputs_with_buffer()) {
            let _ = e.eval(&thread(5));
        }
    }

    #[test]
    fn parsing_expression_like_text_never_panics(
        src in "[0-9a-z_ ()+*/%<>=!&|^~?:.x-]{0,40}",
        tid in 0u64..64,
    ) {
        if let Ok(e) = Expr::parse(&src, &inputs_with_buffer()) {
            let _ = e.eval(&thread(tid));
        }
    }
}

/// A value's kind and bits (NaN equal to itself).
fn bits(r: &Result<Value, EvalError>) -> Result<(bool, u64), EvalError> {
    match r {
        Ok(Value::Int(v)) => Ok((false, *v as u64)),
        Ok(Value::Float(v)) => Ok((true, v.to_bits())),
        Err(e) => Err(e.clone()),
    }
}

/// Expressions of the chain form: `i` or `rand(seed)` under operations with
/// constants on either side, integer and float, that can fail (`% 0`,
/// `/ 0`, a float shifted, a shift past 63).
fn chain_expr() -> impl Strategy<Value = String> {
    chain_of(prop_oneof![Just("i".to_string())])
}

/// [`chain_expr`] over the variables an input reads.
fn input_chain_expr() -> impl Strategy<Value = String> {
    chain_of(prop_oneof![
        Just("tid".to_string()),
        Just("lane".to_string()),
        Just("warp".to_string()),
        Just("block".to_string()),
        Just("nthreads".to_string()),
    ])
}

/// Chains of `var` or `rand(seed)` under operations with constants.
fn chain_of(var: impl Strategy<Value = String> + 'static) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![var, (-3i64..1000).prop_map(|s| format!("rand({s})")),];
    let constant = prop_oneof![
        (-70i64..70).prop_map(|c| c.to_string()),
        Just("9223372036854775807".to_string()),
        Just("0x40000000".to_string()),
        (-8.0f64..8.0).prop_map(|c| format!("{c:.3}")),
    ];
    let ops = prop_oneof![
        Just("+"),
        Just("-"),
        Just("*"),
        Just("/"),
        Just("%"),
        Just("<<"),
        Just(">>"),
        Just("&"),
        Just("|"),
        Just("^"),
        Just("<"),
        Just("=="),
    ];
    leaf.prop_recursive(5, 16, 1, move |inner| {
        prop_oneof![
            (inner.clone(), ops.clone(), constant.clone())
                .prop_map(|(e, op, c)| format!("({e} {op} {c})")),
            (constant.clone(), ops.clone(), inner.clone())
                .prop_map(|(c, op, e)| format!("({c} {op} {e})")),
            (prop_oneof![Just("-"), Just("!"), Just("~")], inner)
                .prop_map(|(u, e)| format!("{u}({e})")),
        ]
    })
}

proptest! {
    // The reference is the tree interpreter (`Expr::interpret`), which the
    // chain form must match value for value and error for error.
    #[test]
    fn the_chain_form_evaluates_as_the_interpreter(
        src in chain_expr(),
        is in proptest::collection::vec(prop_oneof![0i64..5000, any::<i64>()], 8),
    ) {
        let e = Expr::parse(&src, &Vars::buffer_init()).expect("parses");
        prop_assert!(e.is_chain(), "{src} is not taken as a chain");
        for i in is {
            let env = Env::launch(256, 4096).with(Var::I, i);
            let got = e.eval(&env);
            prop_assert_eq!(bits(&got), bits(&e.interpret(&env)), "{} at i = {}", src, i);
            // An expression said never to fail does not.
            prop_assert!(!e.never_fails() || got.is_ok(), "{} fails at i = {}", src, i);
        }
    }
}

proptest! {
    // The reference is `Expr::eval` point by point (itself held to the
    // interpreter above): a run gives the same value at every point, or
    // declines (`None`) where some point could fail.
    #[test]
    fn a_run_of_elements_evaluates_as_each_element(
        src in chain_expr(),
        start in prop_oneof![0i64..5000, any::<i64>()],
        n in 0usize..70,
    ) {
        let e = Expr::parse(&src, &Vars::buffer_init()).expect("parses");
        let env = Env::launch(256, 4096).with(Var::I, start);
        let mut run = vec![0u64; n];
        let got = e.eval_run(&env, &[Var::I], &mut run);
        prop_assert_eq!(got.is_some(), e.never_fails(), "{} runs or declines", src);
        if let Some(kind) = got {
            for (k, &b) in run.iter().enumerate() {
                let at = env.with(Var::I, start.wrapping_add(k as i64));
                prop_assert_eq!(
                    bits(&Ok(kind.value(b))),
                    bits(&e.eval(&at)),
                    "{} at i = {} + {}", src, start, k
                );
            }
        }
    }

    // The same for a warp's inputs, whose `tid` and `lane` advance
    // together while `warp`, `block` and the launch stay.
    #[test]
    fn a_run_of_threads_evaluates_as_each_thread(
        src in input_chain_expr(),
        tid in 0u64..1_000_000,
        n in 1usize..=32,
    ) {
        let e = Expr::parse(&src, &Vars::inputs()).expect("parses");
        let ctx = |tid: u64| ThreadCtx {
            tid,
            lane: (tid % 32) as u32,
            warp: tid / 32,
            block: tid / 128,
            ntid: 128,
            nthreads: 1 << 20,
        };
        let first = tid - tid % 32;
        let mut run = vec![0u64; n];
        if let Some(kind) = e.eval_run(&Env::thread(&ctx(first)), &[Var::Tid, Var::Lane], &mut run) {
            for (k, &b) in run.iter().enumerate() {
                let at = Env::thread(&ctx(first + k as u64));
                prop_assert_eq!(bits(&Ok(kind.value(b))), bits(&e.eval(&at)), "{} at tid {}", src, first + k as u64);
            }
        } else {
            prop_assert!(!e.never_fails(), "{} declines a run but never fails", src);
        }
    }
}

#[test]
fn the_common_init_and_input_forms_are_chains() {
    // By hand: 5 * 37 = 185; (7 * 37) % 16 = 259 % 16 = 3; 0.25 + 0.5 * 1.
    for (src, i, want) in [
        ("(i * 37) % 16384", 5, Value::Int(185)),
        ("(i * 37) % 16", 7, Value::Int(3)),
        ("0.25 + 0.5 * (i % 2)", 3, Value::Float(0.75)),
        ("i * 4 + 1", 10, Value::Int(41)),
        ("1 - i", 10, Value::Int(-9)),
        ("(i << 2) - 3", 2, Value::Int(5)),
    ] {
        let e = Expr::parse(src, &Vars::buffer_init()).expect("parses");
        assert!(e.is_chain(), "{src}");
        assert_eq!(e.eval(&Env::new().with(Var::I, i)), Ok(want), "{src}");
    }
    let e = Expr::parse("rand(3)", &Vars::buffer_init()).expect("parses");
    assert!(e.is_chain());
    assert_eq!(
        e.eval(&Env::new().with(Var::I, 9)),
        Ok(Value::Float(rand_unit(3, 9)))
    );
    // Not chains: two variables, a conditional.
    for src in ["i * i", "i > 2 ? 1 : 0"] {
        let e = Expr::parse(src, &Vars::buffer_init()).expect("parses");
        assert!(!e.is_chain(), "{src}");
    }
    // Which can fail: a division by the variable, a shift of a float, an
    // integer division by -1 (i64::MIN / -1 overflows).
    for (src, never) in [
        ("(i * 37) % 16384", true),
        ("0.25 + 0.5 * (i % 2)", true),
        ("rand(3) * 2 < 1", true),
        ("100 / i", false),
        ("rand(3) << 2", false),
        ("i / -1", false),
        ("i / -2", true),
        ("(i & 7) << 2", true),
    ] {
        let e = Expr::parse(src, &Vars::buffer_init()).expect("parses");
        assert_eq!(e.never_fails(), never, "{src}");
    }
    // A failing step gives the interpreter's located error.
    let e = Expr::parse("(i + 1) % 0", &Vars::buffer_init()).expect("parses");
    assert_eq!(
        e.eval(&Env::new()).unwrap_err().message,
        "remainder by zero"
    );
}
