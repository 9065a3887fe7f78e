MOV R2, RZ                        // i = 0
loop:
FFMA R1, R1, 1.5, 1.0             // acc = acc * 1.5 + 1
IADD3 R2, R2, 1, RZ               // i++
ISETP.LT.AND P0, PT, R2, R5, PT   // i < trip?
@P0 BRA loop
EXIT
