.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text._Z4seedPfi          --------------------------
	.section	.text._Z4seedPfi,"ax",@progbits
	.align	128
        .global         _Z4seedPfi
        .type           _Z4seedPfi,@function
        .size           _Z4seedPfi,(.L_x_4 - _Z4seedPfi)
        .other          _Z4seedPfi,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z4seedPfi:
.text._Z4seedPfi:
	//## File "real-seed-predicated.cu", line 3
        /*0000*/                   LDC R1, c[0x0][0x28] ;              /* 0x00000a00ff017b82 */
                                                                       /* 0x000fe20000000800 */
	//## File "real-seed-predicated.cu", line 4
        /*0010*/                   S2R R0, SR_TID.X ;                  /* 0x0000000000007919 */
                                                                       /* 0x000e2e0000002100 */
        /*0020*/                   S2UR UR4, SR_CTAID.X ;              /* 0x00000000000479c3 */
                                                                       /* 0x000e300000002500 */
        /*0030*/                   LDC R5, c[0x0][RZ] ;                /* 0x00000000ff057b82 */
                                                                       /* 0x000e240000000800 */
        /*0040*/                   IMAD R5, R5, UR4, R0 ;              /* 0x0000000405057c24 */
                                                                       /* 0x001fe2000f8e0200 */
	//## File "real-seed-predicated.cu", line 5
        /*0050*/                   ULDC UR4, c[0x0][0x218] ;           /* 0x0000860000047ab9 */
                                                                       /* 0x000fc80000000800 */
        /*0060*/                   ISETP.GE.AND P0, PT, R5, UR4, PT ;  /* 0x0000000405007c0c */
                                                                       /* 0x000fda000bf06270 */
.L_x_1:
        /*0070*/               @P0 EXIT ;                              /* 0x000000000000094d */
                                                                       /* 0x000fea0003800000 */
	//## File "real-seed-predicated.cu", line 6
        /*0080*/                   LDC.64 R2, c[0x0][0x210] ;          /* 0x00008400ff027b82 */
                                                                       /* 0x000e220000000a00 */
        /*0090*/                   ULDC.64 UR4, c[0x0][0x208] ;        /* 0x0000820000047ab9 */
                                                                       /* 0x000fe20000000a00 */
        /*00a0*/                   IMAD.WIDE R2, R5, 0x4, R2 ;         /* 0x0000000405027825 */
                                                                       /* 0x001fca00078e0202 */
        /*00b0*/                   LDG.E R0, desc[UR4][R2.64] ;        /* 0x0000000402007981 */
                                                                       /* 0x000ea4000c1e1900 */
        /*00c0*/                   FSETP.GT.AND P0, PT, R0, 0.5, PT ;  /* 0x3f0000000000780b */
                                                                       /* 0x004fda0003f04000 */
	//## File "real-seed-predicated.cu", line 9
        /*00d0*/              @!P0 FADD R5, R0, -1 ;                   /* 0xbf80000000058421 */
                                                                       /* 0x000fca0000000000 */
        /*00e0*/              @!P0 STG.E desc[UR4][R2.64], R5 ;        /* 0x0000000502008986 */
                                                                       /* 0x0001e2000c101904 */
.L_x_2:
	//## File "real-seed-predicated.cu", line 11
        /*00f0*/              @!P0 EXIT ;                              /* 0x000000000000894d */
                                                                       /* 0x000fea0003800000 */
	//## File "real-seed-predicated.cu", line 7
        /*0100*/                   FADD R5, R0, 1 ;                    /* 0x3f80000000057421 */
                                                                       /* 0x001fca0000000000 */
        /*0110*/                   STG.E desc[UR4][R2.64], R5 ;        /* 0x0000000502007986 */
                                                                       /* 0x000fe2000c101904 */
.L_x_3:
        /*0120*/                   EXIT ;                              /* 0x000000000000794d */
                                                                       /* 0x000fea0003800000 */
.L_x_0:
        /*0130*/                   BRA `(.L_x_0);                      /* 0xfffffffc00fc7947 */
                                                                       /* 0x000fc0000383ffff */
        /*0140*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*0150*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*0160*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*0170*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*0180*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*0190*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*01a0*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*01b0*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*01c0*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*01d0*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*01e0*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
        /*01f0*/                   NOP;                                /* 0x0000000000007918 */
                                                                       /* 0x000fc00000000000 */
.L_x_4:


//--------------------- SYMBOLS --------------------------

	.type		.nv.reservedSmem.offset0,@object
	.size		.nv.reservedSmem.offset0,0x4
