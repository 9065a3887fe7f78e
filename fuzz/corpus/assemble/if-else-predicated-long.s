ISETP.LT.AND P0, PT, R0, 16, PT   // compare: all 32 lanes on
@P0  FFMA R2, R2, 2.0, 1.0        // then (lanes 0..15): x = 2x + 1, ten times
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@P0  FFMA R2, R2, 2.0, 1.0
@!P0 FFMA R2, R2, 0.5, 3.0        // else (lanes 16..31): x = x/2 + 3, ten times
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
@!P0 FFMA R2, R2, 0.5, 3.0
EXIT                              // join: all 32 on
