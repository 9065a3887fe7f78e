[B------:R-:W-:-:S04] S2R R0, SR_TID.X
[B------:R-:W-:-:S01] I2F R1, R0                      // (float) i
[B------:R-:W-:-:S01] IMAD R2, R0, 4, c[0x0][0x160]   // &x[i]
[B------:R-:W-:-:S03] IMAD R7, R0, 4, c[0x0][0x164]   // &out[i]
[B------:R-:W3:-:S01] LDG.E R4, [R2]                  // long producer on SB3
[B------:R-:W3:-:S01] MUFU.SIN R5, R1                 // short producer, same SB3
[B---3--:R-:W-:-:S04] FMUL R6, R4, R5                 // waits for SB3 == 0
[B------:R-:W-:-:S01] STG.E [R7], R6
[B------:R-:W-:-:S01] EXIT
