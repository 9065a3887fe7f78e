.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text._Z9histogramPKiPj   --------------------------
	.section	.text._Z9histogramPKiPj,"ax",@progbits
	.align	128
        .global         _Z9histogramPKiPj
        .type           _Z9histogramPKiPj,@function
        .size           _Z9histogramPKiPj,(.L_x_3 - _Z9histogramPKiPj)
        .other          _Z9histogramPKiPj,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z9histogramPKiPj:
.text._Z9histogramPKiPj:
	//## File "real-histogram-shared.cu", line 4
        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
                                                                                 /* 0x000fe20000000800 */
	//## File "real-histogram-shared.cu", line 6
        /*0010*/                   S2R R7, SR_TID.X ;                            /* 0x0000000000077919 */
                                                                                 /* 0x000e2e0000002100 */
	//## File "real-histogram-shared.cu", line 11
        /*0020*/                   S2UR UR5, SR_CgaCtaId ;                       /* 0x00000000000579c3 */
                                                                                 /* 0x000e620000008800 */
        /*0030*/                   UMOV UR4, 0x400 ;                             /* 0x0000040000047882 */
                                                                                 /* 0x000fe20000000000 */
        /*0040*/                   ULDC.64 UR6, c[0x0][0x208] ;                  /* 0x0000820000067ab9 */
                                                                                 /* 0x000fe20000000a00 */
	//## File "real-histogram-shared.cu", line 9
        /*0050*/                   S2R R0, SR_CTAID.X ;                          /* 0x0000000000007919 */
                                                                                 /* 0x000eaa0000002500 */
        /*0060*/                   LDC.64 R2, c[0x0][0x210] ;                    /* 0x00008400ff027b82 */
                                                                                 /* 0x000ee20000000a00 */
	//## File "real-histogram-shared.cu", line 11
        /*0070*/                   ULEA UR4, UR5, UR4, 0x18 ;                    /* 0x0000000405047291 */
                                                                                 /* 0x002fc6000f8ec03f */
	//## File "real-histogram-shared.cu", line 9
        /*0080*/                   ULDC UR5, c[0x0][0x0] ;                       /* 0x0000000000057ab9 */
                                                                                 /* 0x000fe20000000800 */
	//## File "real-histogram-shared.cu", line 7
        /*0090*/                   ISETP.GT.AND P0, PT, R7.reuse, 0x7, PT ;      /* 0x000000070700780c */
                                                                                 /* 0x041fe20003f04270 */
	//## File "real-histogram-shared.cu", line 9
        /*00a0*/                   IMAD R5, R0, UR5, R7 ;                        /* 0x0000000500057c24 */
                                                                                 /* 0x004fe2000f8e0207 */
	//## File "real-histogram-shared.cu", line 11
        /*00b0*/                   LEA R0, R7, UR4, 0x2 ;                        /* 0x0000000407007c11 */
                                                                                 /* 0x000fc6000f8e10ff */
	//## File "real-histogram-shared.cu", line 9
        /*00c0*/                   IMAD.WIDE.U32 R2, R5, 0x4, R2 ;               /* 0x0000000405027825 */
                                                                                 /* 0x008fd000078e0002 */
	//## File "real-histogram-shared.cu", line 7
        /*00d0*/              @!P0 STS [R0], RZ ;                                /* 0x000000ff00008388 */
                                                                                 /* 0x0001e20000000800 */
	//## File "real-histogram-shared.cu", line 8
        /*00e0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                 /* 0x0000000000007b1d */
                                                                                 /* 0x000fec0000010000 */
	//## File "real-histogram-shared.cu", line 9
        /*00f0*/                   LDG.E R2, desc[UR6][R2.64] ;                  /* 0x0000000602027981 */
                                                                                 /* 0x000ea4000c1e1900 */
        /*0100*/                   LEA R4, R2, UR4, 0x2 ;                        /* 0x0000000402047c11 */
                                                                                 /* 0x004fca000f8e10ff */
	//## File "device_atomic_functions.hpp", line 112
        /*0110*/                   ATOMS.POPC.INC.32 RZ, [R4+URZ] ;              /* 0x0000000004ff7f8c */
                                                                                 /* 0x0001e2000d80003f */
	//## File "real-histogram-shared.cu", line 10
        /*0120*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                 /* 0x0000000000007b1d */
                                                                                 /* 0x000fec0000010000 */
.L_x_1:
	//## File "real-histogram-shared.cu", line 11
        /*0130*/               @P0 EXIT ;                                        /* 0x000000000000094d */
                                                                                 /* 0x000fea0003800000 */
        /*0140*/                   LDS R5, [R0] ;                                /* 0x0000000000057984 */
                                                                                 /* 0x000e620000000800 */
        /*0150*/                   LDC.64 R2, c[0x0][0x218] ;                    /* 0x00008600ff027b82 */
                                                                                 /* 0x000ea40000000a00 */
        /*0160*/                   IMAD.WIDE R2, R7, 0x4, R2 ;                   /* 0x0000000407027825 */
                                                                                 /* 0x004fca00078e0202 */
	//## File "device_atomic_functions.hpp", line 112
        /*0170*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;  /* 0x000000050200798e */
                                                                                 /* 0x002fe2000c10e186 */
.L_x_2:
	//## File "real-histogram-shared.cu", line 12
        /*0180*/                   EXIT ;                                        /* 0x000000000000794d */
                                                                                 /* 0x000fea0003800000 */
.L_x_0:
        /*0190*/                   BRA `(.L_x_0);                                /* 0xfffffffc00fc7947 */
                                                                                 /* 0x000fc0000383ffff */
        /*01a0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*01b0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*01c0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*01d0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*01e0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*01f0*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0200*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0210*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0220*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0230*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0240*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0250*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0260*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
        /*0270*/                   NOP;                                          /* 0x0000000000007918 */
                                                                                 /* 0x000fc00000000000 */
.L_x_3:


//--------------------- SYMBOLS --------------------------

	.type		.nv.reservedSmem.offset0,@object
	.size		.nv.reservedSmem.offset0,0x4
