ISETP.GE.AND P0, PT, R0, 16, PT   // lanes 16..31 take the else side
@P0 BRA else                      // divergent: 16 jump, 16 fall through
FFMA R2, R2, 2.0, 1.0             // then (lanes 0..15), ten times
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
BRA join
else:
FFMA R2, R2, 0.5, 3.0             // else (lanes 16..31), ten times
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
join:
EXIT                              // reconverged: 32 lanes
