S2R R0, SR_LANEID
SHL R7, R0, 2                         // &smem[lane]
ISETP.LT.AND P1, PT, R0, 16, PT       // lanes 0..15 do the adds
ISETP.EQ.AND P3, PT, R0, RZ, PT       // lane 0 writes the result
LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT   // lane & 1
ISETP.NE.AND P0, PT, R1, RZ, PT
@P0 BRA odd                           // odd lanes jump
I2F R4, R0                            // even lanes: v = (float) lane
BRA store
odd:
IMAD R2, R0, 4, c[0x0][0x160]         // odd lanes: v = (float) table[lane]
LDG.E R3, [R2]
I2F R4, R3
store:
STS [R7], R4                          // smem[lane] = v
@P1 LDS R5, [R7+0x40]                 // v += smem[lane + 16]
@P1 FADD R4, R4, R5
@P1 STS [R7], R4                      // smem[lane] = v
@P1 LDS R5, [R7+0x20]                 // v += smem[lane + 8]
@P1 FADD R4, R4, R5
@P1 STS [R7], R4
@P1 LDS R5, [R7+0x10]                 // v += smem[lane + 4]
@P1 FADD R4, R4, R5
@P1 STS [R7], R4
@P1 LDS R5, [R7+0x8]                  // v += smem[lane + 2]
@P1 FADD R4, R4, R5
@P1 STS [R7], R4
@P1 LDS R5, [R7+0x4]                  // v += smem[lane + 1]
@P1 FADD R4, R4, R5
MOV R8, c[0x0][0x164]
MOV R9, c[0x0][0x168]
@P3 STG.E [R8], R4                    // out[0] = sum (lane 0)
FSETP.NE.AND P2, PT, R4, 496.0, P3    // lane 0: sum wrong?
@P2 STG.E [R9], R4                    // errors[0] = sum
EXIT
