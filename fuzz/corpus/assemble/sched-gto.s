IADD3 R10, R0, 1, RZ              // independent setup work
IADD3 R11, R0, 2, RZ
IADD3 R12, R0, 3, RZ
IADD3 R13, R0, 4, RZ
IADD3 R14, R0, 5, RZ
IADD3 R15, R0, 6, RZ
IADD3 R16, R0, 7, RZ
IADD3 R17, R0, 8, RZ
LDG.E R5, [R2]                    // data[tid]
FADD R20, R5, 1.0                 // math on the loaded value
FADD R21, R5, 2.0
FADD R22, R5, 3.0
FADD R23, R5, 4.0
FADD R24, R5, 5.0
FADD R25, R5, 6.0
FADD R26, R5, 7.0
FADD R27, R5, 8.0
EXIT
