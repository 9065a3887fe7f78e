S2R R0, SR_TID.X
LOP3.LUT R1, R0, 0x8, RZ, 0xc0, !PT   // tid & 8
ISETP.NE.AND P0, PT, R1, RZ, PT
@P0 BRA else
FFMA R2, R2, 2.0, 1.0                 // then: lanes 0..7, 16..23, ...
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
BRA join
else:
FFMA R2, R2, 0.5, 3.0                 // else: lanes 8..15, 24..31, ...
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
join:
EXIT
