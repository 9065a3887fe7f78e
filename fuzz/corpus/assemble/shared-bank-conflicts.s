S2R R0, SR_TID.X
SHL R1, R0, 2                     // byte offset of word tid      (stride 1)
SHL R2, R0, 3                     // byte offset of word 2 * tid  (stride 2)
SHL R3, R0, 7                     // byte offset of word 32 * tid (stride 32)
LDS R4, [R1]                      // 1 pass
FADD R10, R4, 1.0
LDS R5, [R2]                      // 2 passes
FADD R11, R5, 1.0
LDS R6, [R3]                      // 32 passes
FADD R12, R6, 1.0
EXIT
