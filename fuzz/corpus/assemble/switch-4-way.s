LOP3.LUT R1, R0, 0x3, RZ, 0xc0, !PT   // lane & 3
ISETP.EQ.AND P0, PT, R1, 0, PT
ISETP.EQ.AND P1, PT, R1, 1, PT
ISETP.EQ.AND P2, PT, R1, 2, PT
@P0 BRA case0                         // 8 lanes jump, 24 continue
@P1 BRA case1                         // 8 of those 24 jump
@P2 BRA case2                         // 8 of the last 16 jump
FFMA R2, R2, 3.0, 1.0                 // case 3 (falls through): 8 lanes
FFMA R2, R2, 3.0, 1.0
FFMA R2, R2, 3.0, 1.0
FFMA R2, R2, 3.0, 1.0
BRA join
case0:
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
FFMA R2, R2, 0.5, 1.0
BRA join
case1:
FFMA R2, R2, 1.5, 1.0
FFMA R2, R2, 1.5, 1.0
FFMA R2, R2, 1.5, 1.0
FFMA R2, R2, 1.5, 1.0
BRA join
case2:
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
join:
EXIT
