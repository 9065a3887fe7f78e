S2R R0, SR_TID.X                  // tid
IMAD R4, R0, 4, c[0x0][0x160]     // &trips[tid]
LDG.E R5, [R4]                    // this lane's trip count
MOV R2, RZ                        // i = 0
MOV R1, RZ                        // acc = 0.0
loop:
FFMA R1, R1, 1.5, 1.0             // acc = acc * 1.5 + 1
IADD3 R2, R2, 1, RZ               // i++
ISETP.LT.AND P0, PT, R2, R5, PT   // i < trip?
@P0 BRA loop
IMAD R6, R0, 4, c[0x0][0x168]     // &out[tid]
STG.E [R6], R1
EXIT
