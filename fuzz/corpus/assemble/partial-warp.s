S2R R0, SR_TID.X
I2F R1, R0
FMUL R2, R1, R1                   // tid * tid
IMAD R4, R0, 4, c[0x0][0x160]     // &out[tid]
STG.E [R4], R2
EXIT
