S2R R0, SR_TID.X
LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT   // tid & 1
I2F R2, R0                            // x = (float) tid
IMAD R6, R0, 4, c[0x0][0x160]         // &out[tid]
ISETP.NE.AND P0, PT, R1, RZ, PT
BSSY B0, join
@P0 BRA odd                           // odd lanes jump
FFMA R2, R2, 2.0, 1.0                 // even lanes: six dependent FFMAs
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
FFMA R2, R2, 2.0, 1.0
BRA join
odd:
FFMA R2, R2, 0.5, 3.0                 // odd lanes: six dependent FFMAs
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
FFMA R2, R2, 0.5, 3.0
join:
BSYNC B0
STG.E [R6], R2
EXIT
