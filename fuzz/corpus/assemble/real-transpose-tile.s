.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text._Z14transpose_tilePKfPf --------------------------
	.section	.text._Z14transpose_tilePKfPf,"ax",@progbits
	.align	128
        .global         _Z14transpose_tilePKfPf
        .type           _Z14transpose_tilePKfPf,@function
        .size           _Z14transpose_tilePKfPf,(.L_x_2 - _Z14transpose_tilePKfPf)
        .other          _Z14transpose_tilePKfPf,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z14transpose_tilePKfPf:
.text._Z14transpose_tilePKfPf:
	//## File "real-transpose-tile.cu", line 6
        /*0000*/                   LDC R1, c[0x0][0x28] ;               /* 0x00000a00ff017b82 */
                                                                        /* 0x000fe20000000800 */
	//## File "real-transpose-tile.cu", line 8
        /*0010*/                   S2R R3, SR_CTAID.X ;                 /* 0x0000000000037919 */
                                                                        /* 0x000e2e0000002500 */
	//## File "real-transpose-tile.cu", line 10
        /*0020*/                   LDC R10, c[0x0][0xc] ;               /* 0x00000300ff0a7b82 */
                                                                        /* 0x000e620000000800 */
        /*0030*/                   ULDC.64 UR6, c[0x0][0x208] ;         /* 0x0000820000067ab9 */
                                                                        /* 0x000fe20000000a00 */
	//## File "real-transpose-tile.cu", line 8
        /*0040*/                   S2R R6, SR_TID.X ;                   /* 0x0000000000067919 */
                                                                        /* 0x000e220000002100 */
	//## File "real-transpose-tile.cu", line 9
        /*0050*/                   S2R R5, SR_CTAID.Y ;                 /* 0x0000000000057919 */
                                                                        /* 0x000eaa0000002600 */
	//## File "real-transpose-tile.cu", line 12
        /*0060*/                   LDC.64 R8, c[0x0][0x210] ;           /* 0x00008400ff087b82 */
                                                                        /* 0x000ee20000000a00 */
	//## File "real-transpose-tile.cu", line 9
        /*0070*/                   S2R R4, SR_TID.Y ;                   /* 0x0000000000047919 */
                                                                        /* 0x000ea20000002200 */
	//## File "real-transpose-tile.cu", line 10
        /*0080*/                   SHF.L.U32 R2, R10, 0x5, RZ ;         /* 0x000000050a027819 */
                                                                        /* 0x002fc400000006ff */
	//## File "real-transpose-tile.cu", line 8
        /*0090*/                   LEA R7, R3, R6, 0x5 ;                /* 0x0000000603077211 */
                                                                        /* 0x001fe400078e28ff */
	//## File "real-transpose-tile.cu", line 9
        /*00a0*/                   LEA R0, R5, R4, 0x5 ;                /* 0x0000000405007211 */
                                                                        /* 0x004fca00078e28ff */
	//## File "real-transpose-tile.cu", line 12
        /*00b0*/                   IMAD R7, R0, R2, R7 ;                /* 0x0000000200077224 */
                                                                        /* 0x000fe200078e0207 */
        /*00c0*/                   SHF.L.U32 R0, R10, 0x8, RZ ;         /* 0x000000080a007819 */
                                                                        /* 0x000fc600000006ff */
        /*00d0*/                   IMAD.WIDE R8, R7, 0x4, R8 ;          /* 0x0000000407087825 */
                                                                        /* 0x008fca00078e0208 */
        /*00e0*/                   LDG.E R7, desc[UR6][R8.64] ;         /* 0x0000000608077981 */
                                                                        /* 0x0000a2000c1e1900 */
        /*00f0*/                   IMAD.WIDE R10, R0, 0x4, R8 ;         /* 0x00000004000a7825 */
                                                                        /* 0x000fc800078e0208 */
        /*0100*/                   IMAD.WIDE R12, R0.reuse, 0x4, R10 ;  /* 0x00000004000c7825 */
                                                                        /* 0x040fe400078e020a */
        /*0110*/                   LDG.E R11, desc[UR6][R10.64] ;       /* 0x000000060a0b7981 */
                                                                        /* 0x000ee2000c1e1900 */
        /*0120*/                   S2UR UR5, SR_CgaCtaId ;              /* 0x00000000000579c3 */
                                                                        /* 0x000e620000008800 */
        /*0130*/                   IMAD.WIDE R14, R0, 0x4, R12 ;        /* 0x00000004000e7825 */
                                                                        /* 0x000fe400078e020c */
        /*0140*/                   LDG.E R13, desc[UR6][R12.64] ;       /* 0x000000060c0d7981 */
                                                                        /* 0x000f22000c1e1900 */
        /*0150*/                   UMOV UR4, 0x400 ;                    /* 0x0000040000047882 */
                                                                        /* 0x000fc80000000000 */
	//## File "real-transpose-tile.cu", line 17
        /*0160*/                   LDC.64 R8, c[0x0][0x218] ;           /* 0x00008600ff087b82 */
                                                                        /* 0x001e220000000a00 */
	//## File "real-transpose-tile.cu", line 12
        /*0170*/                   LDG.E R15, desc[UR6][R14.64] ;       /* 0x000000060e0f7981 */
                                                                        /* 0x000f62000c1e1900 */
        /*0180*/                   ULEA UR4, UR5, UR4, 0x18 ;           /* 0x0000000405047291 */
                                                                        /* 0x002fcc000f8ec03f */
        /*0190*/                   LEA R17, R4, UR4, 0x7 ;              /* 0x0000000404117c11 */
                                                                        /* 0x000fc8000f8e38ff */
        /*01a0*/                   LEA R16, R6.reuse, R17, 0x2 ;        /* 0x0000001106107211 */
                                                                        /* 0x040fe400078e10ff */
	//## File "real-transpose-tile.cu", line 17
        /*01b0*/                   LEA R17, R6, UR4, 0x7 ;              /* 0x0000000406117c11 */
                                                                        /* 0x000fc8000f8e38ff */
        /*01c0*/                   LEA R17, R4, R17, 0x2 ;              /* 0x0000001104117211 */
                                                                        /* 0x000fe400078e10ff */
	//## File "real-transpose-tile.cu", line 14
        /*01d0*/                   LEA R5, R5, R6, 0x5 ;                /* 0x0000000605057211 */
                                                                        /* 0x000fe400078e28ff */
	//## File "real-transpose-tile.cu", line 15
        /*01e0*/                   LEA R3, R3, R4, 0x5 ;                /* 0x0000000403037211 */
                                                                        /* 0x000fca00078e28ff */
	//## File "real-transpose-tile.cu", line 17
        /*01f0*/                   IMAD R3, R2, R3, R5 ;                /* 0x0000000302037224 */
                                                                        /* 0x000fc800078e0205 */
        /*0200*/                   IMAD.WIDE R8, R3, 0x4, R8 ;          /* 0x0000000403087825 */
                                                                        /* 0x001fc800078e0208 */
        /*0210*/                   IMAD.WIDE R2, R0, 0x4, R8 ;          /* 0x0000000400027825 */
                                                                        /* 0x000fc800078e0208 */
        /*0220*/                   IMAD.WIDE R4, R0.reuse, 0x4, R2 ;    /* 0x0000000400047825 */
                                                                        /* 0x040fe200078e0202 */
	//## File "real-transpose-tile.cu", line 12
        /*0230*/                   STS [R16], R7 ;                      /* 0x0000000710007388 */
                                                                        /* 0x0041e80000000800 */
        /*0240*/                   STS [R16+0x400], R11 ;               /* 0x0004000b10007388 */
                                                                        /* 0x008fe80000000800 */
        /*0250*/                   STS [R16+0x800], R13 ;               /* 0x0008000d10007388 */
                                                                        /* 0x010fe80000000800 */
        /*0260*/                   STS [R16+0xc00], R15 ;               /* 0x000c000f10007388 */
                                                                        /* 0x020fe20000000800 */
	//## File "real-transpose-tile.cu", line 13
        /*0270*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;        /* 0x0000000000007b1d */
                                                                        /* 0x000fec0000010000 */
	//## File "real-transpose-tile.cu", line 17
        /*0280*/                   LDS R19, [R17] ;                     /* 0x0000000011137984 */
                                                                        /* 0x000e680000000800 */
        /*0290*/                   LDS R21, [R17+0x20] ;                /* 0x0000200011157984 */
                                                                        /* 0x000ea80000000800 */
        /*02a0*/                   LDS R23, [R17+0x40] ;                /* 0x0000400011177984 */
                                                                        /* 0x000ee80000000800 */
        /*02b0*/                   LDS R25, [R17+0x60] ;                /* 0x0000600011197984 */
                                                                        /* 0x000f220000000800 */
        /*02c0*/                   IMAD.WIDE R6, R0, 0x4, R4 ;          /* 0x0000000400067825 */
                                                                        /* 0x001fc600078e0204 */
        /*02d0*/                   STG.E desc[UR6][R8.64], R19 ;        /* 0x0000001308007986 */
                                                                        /* 0x002fe8000c101906 */
        /*02e0*/                   STG.E desc[UR6][R2.64], R21 ;        /* 0x0000001502007986 */
                                                                        /* 0x004fe8000c101906 */
        /*02f0*/                   STG.E desc[UR6][R4.64], R23 ;        /* 0x0000001704007986 */
                                                                        /* 0x008fe8000c101906 */
        /*0300*/                   STG.E desc[UR6][R6.64], R25 ;        /* 0x0000001906007986 */
                                                                        /* 0x010fe2000c101906 */
.L_x_1:
	//## File "real-transpose-tile.cu", line 18
        /*0310*/                   EXIT ;                               /* 0x000000000000794d */
                                                                        /* 0x000fea0003800000 */
.L_x_0:
        /*0320*/                   BRA `(.L_x_0);                       /* 0xfffffffc00fc7947 */
                                                                        /* 0x000fc0000383ffff */
        /*0330*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0340*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0350*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0360*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0370*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0380*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*0390*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*03a0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*03b0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*03c0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*03d0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*03e0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
        /*03f0*/                   NOP;                                 /* 0x0000000000007918 */
                                                                        /* 0x000fc00000000000 */
.L_x_2:


//--------------------- SYMBOLS --------------------------

	.type		.nv.reservedSmem.offset0,@object
	.size		.nv.reservedSmem.offset0,0x4
