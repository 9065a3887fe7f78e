S2R R0, SR_TID.X
LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT   // tid & 1: odd lanes jump
ISETP.NE.AND P0, PT, R1, RZ, PT
@P0 BRA odd
FFMA R2, R2, 2.0, 1.0                 // even lanes: a chain of 4
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
BRA join
odd:
FFMA R2, R2, 0.5, 3.0                 // odd lanes: a chain of 4
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
join:
EXIT
