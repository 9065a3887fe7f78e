[B------:R-:W-:-:S01] S2R R0, SR_TID.X
[B------:R-:W-:-:S04] S2R R1, SR_CTAID.X
[B------:R-:W-:-:S04] IMAD R0, R1, c[0x0][0x0], R0    // i = blockIdx * blockDim + tid
[B------:R-:W-:-:S01] IMAD R2, R0, 8, c[0x0][0x160]   // &a[2 i]
[B------:R-:W-:-:S01] IMAD R4, R0, 4, c[0x0][0x164]   // &b[i]
[B------:R-:W-:-:S02] IMAD R9, R0, 4, c[0x0][0x168]   // &c[i]
[B------:R-:W2:-:S01] LDG.E R6, [R2]                  // SB2: 0 -> 1
[B------:R-:W2:-:S01] LDG.E R7, [R4]                  // SB2: 1 -> 2
[B--2---:R-:W-:-:S04] FADD R8, R6, R7                 // waits for SB2 == 0
[B------:R-:W-:-:S01] STG.E [R9], R8
[B------:R-:W-:-:S01] EXIT
