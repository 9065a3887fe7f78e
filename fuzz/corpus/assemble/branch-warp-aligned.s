S2R R0, SR_TID.X
LOP3.LUT R1, R0, 0x20, RZ, 0xc0, !PT  // tid & 32: 0 for warp 0, 32 for warp 1
ISETP.NE.AND P0, PT, R1, RZ, PT
@P0 BRA else
FFMA R2, R2, 2.0, 1.0                 // then: warp 0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
BRA join
else:
FFMA R2, R2, 0.5, 3.0                 // else: warp 1
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
join:
EXIT
