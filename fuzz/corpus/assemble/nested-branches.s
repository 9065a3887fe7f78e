ISETP.GE.AND P0, PT, R0, 16, PT   // outer else: lanes 16..31
ISETP.GE.AND P1, PT, R0, 8, PT    // inner else: lanes 8..31
@P0 BRA outer_else
FADD R1, R1, 1.0                  // A: lanes 0..15
@P1 BRA inner_else
FADD R2, R2, 2.0                  // B: lanes 0..7
BRA inner_join
inner_else:
FADD R2, R2, 3.0                  // C: lanes 8..15
inner_join:
FADD R1, R1, R2                   // D: lanes 0..15
BRA outer_join
outer_else:
FADD R1, R1, 4.0                  // E: lanes 16..31
outer_join:
EXIT
