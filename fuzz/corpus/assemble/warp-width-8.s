S2R R0, SR_TID.X
LOP3.LUT R1, R0, 0x8, RZ, 0xc0, !PT   // tid & 8
ISETP.NE.AND P0, PT, R1, RZ, PT
@P0 BRA else
FFMA R2, R2, 2.0, 1.0                 // then: warps 0, 2, 4, 6
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
BRA join
else:
FFMA R2, R2, 0.5, 3.0                 // else: warps 1, 3, 5, 7
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
join:
EXIT
