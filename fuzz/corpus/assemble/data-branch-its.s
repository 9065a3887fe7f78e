S2R R0, SR_TID.X
IMAD R2, R0, 4, c[0x0][0x160]     // &data[tid]
IMAD R6, R0, 4, c[0x0][0x164]     // &out[tid]
LDG.E R3, [R2]                    // x = data[tid]
BSSY B0, join                     // the 32 lanes must meet again at join
FSETP.GT.AND P0, PT, R3, 0.5, PT  // x > 0.5 ?
@!P0 BRA else                     // the 15 lanes with x <= 0.5 jump
FMUL R4, R3, 2.0                  // then (17 lanes): 2x - 1
FADD R4, R4, -1.0
BRA join
else:
FMUL R4, R3, 0.5                  // else (15 lanes): x/2 + 1
FADD R4, R4, 1.0
join:
BSYNC B0
STG.E [R6], R4
EXIT
