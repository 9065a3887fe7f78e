.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text._Z12block_reducePKfPf --------------------------
	.section	.text._Z12block_reducePKfPf,"ax",@progbits
	.align	128
        .global         _Z12block_reducePKfPf
        .type           _Z12block_reducePKfPf,@function
        .size           _Z12block_reducePKfPf,(.L_x_14 - _Z12block_reducePKfPf)
        .other          _Z12block_reducePKfPf,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z12block_reducePKfPf:
.text._Z12block_reducePKfPf:
	//## File "real-block-reduce.cu", line 4
        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
                                                                                 /* 0x000fe20000000800 */
	//## File "real-block-reduce.cu", line 7
        /*0010*/                   S2R R0, SR_CTAID.X ;                          /* 0x0000000000007919 */
                                                                                 /* 0x000e2e0000002500 */
        /*0020*/                   LDC.64 R2, c[0x0][0x210] ;                    /* 0x00008400ff027b82 */
                                                                                 /* 0x000e620000000a00 */
        /*0030*/                   ULDC UR5, c[0x0][0x0] ;                       /* 0x0000000000057ab9 */
                                                                                 /* 0x000fe20000000800 */
        /*0040*/                   ULDC.64 UR6, c[0x0][0x208] ;                  /* 0x0000820000067ab9 */
                                                                                 /* 0x000fe20000000a00 */
	//## File "real-block-reduce.cu", line 6
        /*0050*/                   S2R R13, SR_TID.X ;                           /* 0x00000000000d7919 */
                                                                                 /* 0x000e240000002100 */
	//## File "real-block-reduce.cu", line 7
        /*0060*/                   IMAD R5, R0, UR5, R13 ;                       /* 0x0000000500057c24 */
                                                                                 /* 0x001fc8000f8e020d */
        /*0070*/                   IMAD.WIDE.U32 R2, R5, 0x4, R2 ;               /* 0x0000000405027825 */
                                                                                 /* 0x002fcc00078e0002 */
        /*0080*/                   LDG.E R2, desc[UR6][R2.64] ;                  /* 0x0000000602027981 */
                                                                                 /* 0x000ea2000c1e1900 */
	//## File "real-block-reduce.cu", line 9
        /*0090*/                   SHF.R.S32.HI R6, RZ, 0x1f, R13 ;              /* 0x0000001fff067819 */
                                                                                 /* 0x000fc8000001140d */
        /*00a0*/                   LEA.HI R8, R6, R13, RZ, 0x5 ;                 /* 0x0000000d06087211 */
                                                                                 /* 0x000fc800078f28ff */
        /*00b0*/                   LOP3.LUT R6, R8, 0xffffffe0, RZ, 0xc0, !PT ;  /* 0xffffffe008067812 */
                                                                                 /* 0x000fc800078ec0ff */
        /*00c0*/                   IADD3 R9, -R6, R13, RZ ;                      /* 0x0000000d06097210 */
                                                                                 /* 0x000fc80007ffe1ff */
	//## File "real-block-reduce.cu", line 10
        /*00d0*/                   ISETP.NE.AND P0, PT, R9, RZ, PT ;             /* 0x000000ff0900720c */
                                                                                 /* 0x000fda0003f05270 */
        /*00e0*/              @!P0 S2R R11, SR_CgaCtaId ;                        /* 0x00000000000b8919 */
                                                                                 /* 0x000e220000008800 */
	//## File "real-block-reduce.cu", line 9
        /*00f0*/              @!P0 SHF.R.S32.HI R8, RZ, 0x5, R8 ;                /* 0x00000005ff088819 */
                                                                                 /* 0x000fe20000011408 */
.L_x_1:
	//## File "sm_30_intrinsics.hpp", line 439
        /*0100*/                   SHFL.DOWN PT, R5, R2, 0x10, 0x1f ;            /* 0x0a001f0002057f89 */
                                                                                 /* 0x004e6400000e0000 */
	//## File "real-block-reduce.cu", line 8
        /*0110*/                   FADD R5, R2, R5 ;                             /* 0x0000000502057221 */
                                                                                 /* 0x002fe20000000000 */
	//## File "real-block-reduce.cu", line 10
        /*0120*/              @!P0 MOV R2, 0x400 ;                               /* 0x0000040000028802 */
                                                                                 /* 0x000fc80000000f00 */
.L_x_2:
	//## File "sm_30_intrinsics.hpp", line 439
        /*0130*/                   SHFL.DOWN PT, R4, R5, 0x8, 0x1f ;             /* 0x09001f0005047f89 */
                                                                                 /* 0x000e6400000e0000 */
	//## File "real-block-reduce.cu", line 8
        /*0140*/                   FADD R4, R5, R4 ;                             /* 0x0000000405047221 */
                                                                                 /* 0x002fe20000000000 */
	//## File "real-block-reduce.cu", line 10
        /*0150*/              @!P0 LEA R5, R11, R2, 0x18 ;                       /* 0x000000020b058211 */
                                                                                 /* 0x001fc800078ec0ff */
.L_x_3:
	//## File "sm_30_intrinsics.hpp", line 439
        /*0160*/                   SHFL.DOWN PT, R7, R4, 0x4, 0x1f ;             /* 0x08801f0004077f89 */
                                                                                 /* 0x000e2200000e0000 */
	//## File "real-block-reduce.cu", line 10
        /*0170*/              @!P0 LEA R8, R8, R5, 0x2 ;                         /* 0x0000000508088211 */
                                                                                 /* 0x000fe200078e10ff */
	//## File "real-block-reduce.cu", line 8
        /*0180*/                   FADD R7, R4, R7 ;                             /* 0x0000000704077221 */
                                                                                 /* 0x001fe20000000000 */
	//## File "real-block-reduce.cu", line 12
        /*0190*/                   IADD3 R4, R13, 0x1f, RZ ;                     /* 0x0000001f0d047810 */
                                                                                 /* 0x000fc80007ffe0ff */
.L_x_4:
	//## File "sm_30_intrinsics.hpp", line 439
        /*01a0*/                   SHFL.DOWN PT, R6, R7, 0x2, 0x1f ;             /* 0x08401f0007067f89 */
                                                                                 /* 0x000e2200000e0000 */
	//## File "real-block-reduce.cu", line 12
        /*01b0*/                   ISETP.GT.U32.AND P1, PT, R4, 0x3e, PT ;       /* 0x0000003e0400780c */
                                                                                 /* 0x000fe20003f24070 */
	//## File "real-block-reduce.cu", line 8
        /*01c0*/                   FADD R6, R7, R6 ;                             /* 0x0000000607067221 */
                                                                                 /* 0x001fca0000000000 */
.L_x_5:
	//## File "sm_30_intrinsics.hpp", line 439
        /*01d0*/                   SHFL.DOWN PT, R3, R6, 0x1, 0x1f ;             /* 0x08201f0006037f89 */
                                                                                 /* 0x000e2400000e0000 */
	//## File "real-block-reduce.cu", line 8
        /*01e0*/                   FADD R3, R6, R3 ;                             /* 0x0000000306037221 */
                                                                                 /* 0x001fca0000000000 */
	//## File "real-block-reduce.cu", line 10
        /*01f0*/              @!P0 STS [R8], R3 ;                                /* 0x0000000308008388 */
                                                                                 /* 0x0001e20000000800 */
	//## File "real-block-reduce.cu", line 11
        /*0200*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                 /* 0x0000000000007b1d */
                                                                                 /* 0x000fec0000010000 */
.L_x_11:
	//## File "real-block-reduce.cu", line 12
        /*0210*/               @P1 EXIT ;                                        /* 0x000000000000194d */
                                                                                 /* 0x000fea0003800000 */
	//## File "real-block-reduce.cu", line 13
        /*0220*/                   USHF.R.U32.HI UR4, URZ, 0x5, UR5 ;            /* 0x000000053f047899 */
                                                                                 /* 0x000fcc0008011605 */
        /*0230*/                   ISETP.GE.U32.AND P1, PT, R9, UR4, PT ;        /* 0x0000000409007c0c */
                                                                                 /* 0x000fda000bf26070 */
        /*0240*/              @!P1 S2R R3, SR_CgaCtaId ;                         /* 0x0000000000039919 */
                                                                                 /* 0x001e220000008800 */
        /*0250*/              @!P1 MOV R2, 0x400 ;                               /* 0x0000040000029802 */
                                                                                 /* 0x000fc80000000f00 */
        /*0260*/              @!P1 LEA R4, R3, R2, 0x18 ;                        /* 0x0000000203049211 */
                                                                                 /* 0x001fe200078ec0ff */
        /*0270*/                   HFMA2.MMA R2, -RZ, RZ, 0, 0 ;                 /* 0x00000000ff027435 */
                                                                                 /* 0x000fc600000001ff */
        /*0280*/              @!P1 LEA R9, R9, R4, 0x2 ;                         /* 0x0000000409099211 */
                                                                                 /* 0x000fce00078e10ff */
        /*0290*/              @!P1 LDS R2, [R9] ;                                /* 0x0000000009029984 */
                                                                                 /* 0x000e280000000800 */
.L_x_6:
	//## File "sm_30_intrinsics.hpp", line 439
        /*02a0*/                   SHFL.DOWN PT, R3, R2, 0x10, 0x1f ;            /* 0x0a001f0002037f89 */
                                                                                 /* 0x001e2400000e0000 */
	//## File "real-block-reduce.cu", line 14
        /*02b0*/                   FADD R3, R3, R2 ;                             /* 0x0000000203037221 */
                                                                                 /* 0x001fca0000000000 */
.L_x_7:
	//## File "sm_30_intrinsics.hpp", line 439
        /*02c0*/                   SHFL.DOWN PT, R4, R3, 0x8, 0x1f ;             /* 0x09001f0003047f89 */
                                                                                 /* 0x000e2400000e0000 */
	//## File "real-block-reduce.cu", line 14
        /*02d0*/                   FADD R4, R3, R4 ;                             /* 0x0000000403047221 */
                                                                                 /* 0x001fca0000000000 */
.L_x_8:
	//## File "sm_30_intrinsics.hpp", line 439
        /*02e0*/                   SHFL.DOWN PT, R5, R4, 0x4, 0x1f ;             /* 0x08801f0004057f89 */
                                                                                 /* 0x000e2400000e0000 */
	//## File "real-block-reduce.cu", line 14
        /*02f0*/                   FADD R5, R4, R5 ;                             /* 0x0000000504057221 */
                                                                                 /* 0x001fca0000000000 */
.L_x_9:
	//## File "sm_30_intrinsics.hpp", line 439
        /*0300*/                   SHFL.DOWN PT, R6, R5, 0x2, 0x1f ;             /* 0x08401f0005067f89 */
                                                                                 /* 0x000e2400000e0000 */
	//## File "real-block-reduce.cu", line 14
        /*0310*/                   FADD R6, R5, R6 ;                             /* 0x0000000605067221 */
                                                                                 /* 0x001fca0000000000 */
.L_x_10:
	//## File "sm_30_intrinsics.hpp", line 439
        /*0320*/                   SHFL.DOWN PT, R7, R6, 0x1, 0x1f ;             /* 0x08201f0006077f89 */
                                                                                 /* 0x00006200000e0000 */
.L_x_12:
	//## File "real-block-reduce.cu", line 15
        /*0330*/               @P0 EXIT ;                                        /* 0x000000000000094d */
                                                                                 /* 0x000fea0003800000 */
        /*0340*/                   LDC.64 R2, c[0x0][0x218] ;                    /* 0x00008600ff027b82 */
                                                                                 /* 0x000ea20000000a00 */
	//## File "real-block-reduce.cu", line 14
        /*0350*/                   FADD R7, R6, R7 ;                             /* 0x0000000706077221 */
                                                                                 /* 0x002fe20000000000 */
	//## File "real-block-reduce.cu", line 15
        /*0360*/                   IMAD.WIDE.U32 R2, R0, 0x4, R2 ;               /* 0x0000000400027825 */
                                                                                 /* 0x004fca00078e0002 */
        /*0370*/                   STG.E desc[UR6][R2.64], R7 ;                  /* 0x0000000702007986 */
                                                                                 /* 0x000fe2000c101906 */
.L_x_13:
	//## File "real-block-reduce.cu", line 17
        /*0380*/                   EXIT ;                                        /* 0x000000000000794d */
                                                                                 /* 0x000fea0003800000 */
.L_x_0:
        /*0390*/                   BRA `(.L_x_0);                                /* 0xfffffffc00fc7947 */
                                                                                 /* 0x000fc0000383ffff */
        /*03a0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*03b0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*03c0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*03d0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*03e0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*03f0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0400*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0410*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0420*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0430*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0440*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0450*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0460*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0470*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
.L_x_14:


//--------------------- SYMBOLS --------------------------

	.type		.nv.reservedSmem.offset0,@object
	.size		.nv.reservedSmem.offset0,0x4
