.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text._Z9lane_loopPKiPi   --------------------------
	.section	.text._Z9lane_loopPKiPi,"ax",@progbits
	.align	128
        .global         _Z9lane_loopPKiPi
        .type           _Z9lane_loopPKiPi,@function
        .size           _Z9lane_loopPKiPi,(.L_x_5 - _Z9lane_loopPKiPi)
        .other          _Z9lane_loopPKiPi,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z9lane_loopPKiPi:
.text._Z9lane_loopPKiPi:
	//## File "real-lane-loop.cu", line 3
        /*0000*/                   LDC R1, c[0x0][0x28] ;               /* 0x00000a00ff017b82 */
                                                                        /* 0x000fe20000000800 */
	//## File "real-lane-loop.cu", line 4
        /*0010*/                   S2R R7, SR_TID.X ;                   /* 0x0000000000077919 */
                                                                        /* 0x000e2e0000002100 */
	//## File "real-lane-loop.cu", line 5
        /*0020*/                   LDC.64 R2, c[0x0][0x210] ;           /* 0x00008400ff027b82 */
                                                                        /* 0x000e220000000a00 */
        /*0030*/                   ULDC.64 UR4, c[0x0][0x208] ;         /* 0x0000820000047ab9 */
                                                                        /* 0x000fe20000000a00 */
        /*0040*/                   IMAD.WIDE R2, R7, 0x4, R2 ;          /* 0x0000000407027825 */
                                                                        /* 0x001fcc00078e0202 */
        /*0050*/                   LDG.E R2, desc[UR4][R2.64] ;         /* 0x0000000402027981 */
                                                                        /* 0x000ea2000c1e1900 */
	//## File "real-lane-loop.cu", line 8
        /*0060*/                   BSSY B0, `(.L_x_0) ;                 /* 0x000000a000007945 */
                                                                        /* 0x000fe20003800000 */
        /*0070*/                   IMAD.MOV.U32 R5, RZ, RZ, RZ ;        /* 0x000000ffff057224 */
                                                                        /* 0x000fe200078e00ff */
        /*0080*/                   ISETP.GE.AND P0, PT, R2, 0x1, PT ;   /* 0x000000010200780c */
                                                                        /* 0x004fda0003f06270 */
        /*0090*/              @!P0 BRA `(.L_x_1) ;                      /* 0x0000000000188947 */
                                                                        /* 0x000fea0003800000 */
        /*00a0*/                   HFMA2.MMA R5, -RZ, RZ, 0, 0 ;        /* 0x00000000ff057435 */
                                                                        /* 0x000fe200000001ff */
        /*00b0*/                   IMAD.MOV.U32 R0, RZ, RZ, RZ ;        /* 0x000000ffff007224 */
                                                                        /* 0x000fd400078e00ff */
.L_x_2:
        /*00c0*/                   IMAD.IADD R5, R0.reuse, 0x1, R5 ;    /* 0x0000000100057824 */
                                                                        /* 0x040fe200078e0205 */
        /*00d0*/                   IADD3 R0, R0, 0x1, RZ ;              /* 0x0000000100007810 */
                                                                        /* 0x000fc80007ffe0ff */
        /*00e0*/                   ISETP.GE.AND P0, PT, R0, R2, PT ;    /* 0x000000020000720c */
                                                                        /* 0x000fda0003f06270 */
        /*00f0*/              @!P0 BRA `(.L_x_2) ;                      /* 0xfffffffc00f08947 */
                                                                        /* 0x000fea000383ffff */
.L_x_1:
        /*0100*/                   BSYNC B0 ;                           /* 0x0000000000007941 */
                                                                        /* 0x000fea0003800000 */
.L_x_0:
	//## File "real-lane-loop.cu", line 9
        /*0110*/                   ULDC.64 UR6, c[0x0][0x218] ;         /* 0x0000860000067ab9 */
                                                                        /* 0x000fe20000000a00 */
	//## File "real-lane-loop.cu", line 5
        /*0120*/                   SHF.R.S32.HI R0, RZ, 0x1f, R7 ;      /* 0x0000001fff007819 */
                                                                        /* 0x000fe40000011407 */
	//## File "real-lane-loop.cu", line 9
        /*0130*/                   LEA R2, P0, R7, UR6, 0x2 ;           /* 0x0000000607027c11 */
                                                                        /* 0x000fc8000f8010ff */
        /*0140*/                   LEA.HI.X R3, R7, UR7, R0, 0x2, P0 ;  /* 0x0000000707037c11 */
                                                                        /* 0x000fca00080f1400 */
        /*0150*/                   STG.E desc[UR4][R2.64], R5 ;         /* 0x0000000502007986 */
                                                                        /* 0x000fe2000c101904 */
.L_x_4:
	//## File "real-lane-loop.cu", line 10
        /*0160*/                   EXIT ;                               /* 0x000000000000794d */
                                                                        /* 0x000fea0003800000 */
.L_x_3:
        /*0170*/                   BRA `(.L_x_3);                       /* 0xfffffffc00fc7947 */
                                                                        /* 0x000fc0000383ffff */
        /*0180*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0190*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*01a0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*01b0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*01c0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*01d0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*01e0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*01f0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
.L_x_5:


//--------------------- SYMBOLS --------------------------

	.type		.nv.reservedSmem.offset0,@object
	.size		.nv.reservedSmem.offset0,0x4
