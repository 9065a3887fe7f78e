S2R R0, SR_TID.X
IMAD R4, R0, 128, c[0x0][0x160]   // &data[32 * tid]: one word per line
LDG.E R5, [R4]
FADD R6, R5, 1.0                  // waits for the load
EXIT
