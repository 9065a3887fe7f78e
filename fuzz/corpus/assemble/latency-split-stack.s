S2R R0, SR_TID.X
IMAD R2, R0, 4, c[0x0][0x160]         // &a[tid]
IMAD R4, R0, 4, c[0x0][0x164]         // &b[tid]
IMAD R6, R0, 4, c[0x0][0x168]         // &out[tid]
LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT   // tid & 1
ISETP.NE.AND P0, PT, R1, RZ, PT
BSSY B0, join
@P0 BRA odd                           // odd lanes jump
LDG.E R8, [R2]                        // even lanes: a[tid] + 1
FADD R8, R8, 1.0
BRA join
odd:
LDG.E R8, [R4]                        // odd lanes: b[tid] * 2
FMUL R8, R8, 2.0
join:
BSYNC B0
STG.E [R6], R8
EXIT
