ISETP.EQ.AND P0, PT, R0, 31, PT   // only lane 31 takes the slow path
@P0 BRA slow
FADD R2, R2, 1.0                  // fast path: lanes 0..30
BRA join
slow:
FFMA R2, R2, 0.5, 1.0             // slow path: lane 31, sixteen times
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
join:
EXIT
