MOV R2, RZ                        // i = 0
BSSY B0, notfound                 // all 32 lanes to meet at BSYNC
loop:
ISETP.EQ.AND P1, PT, R2, R5, PT   // found it in this step?
@P1 BREAK B0                      // finders leave barrier B0...
@P1 BRA found                     // ...and the loop
FFMA R1, R1, 1.5, 1.0             // work()
IADD3 R2, R2, 1, RZ               // i++
ISETP.LT.AND P0, PT, R2, 8, PT
@P0 BRA loop
MOV R2, -1                        // not found
notfound:
BSYNC B0                          // the 16 lanes that ran all 8 steps meet
found:
STG.E [R6], R2
EXIT
