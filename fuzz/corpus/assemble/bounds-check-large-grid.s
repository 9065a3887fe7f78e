S2R R0, SR_TID.X
S2R R1, SR_CTAID.X
IMAD R0, R1, c[0x0][0x0], R0                 // idx = blockIdx * blockDim + tid
ISETP.GE.AND P0, PT, R0, c[0x0][0x160], PT   // idx >= n?
@P0 BRA done
IMAD R2, R0, 4, c[0x0][0x168]                // &x[idx]
IMAD R4, R0, 4, c[0x0][0x170]                // &y[idx]
LDG.E R3, [R2]
LDG.E R5, [R4]
FFMA R5, R3, 2.0, R5                         // 2 x + y
STG.E [R4], R5
done:
EXIT
