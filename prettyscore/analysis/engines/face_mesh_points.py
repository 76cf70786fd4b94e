"""Named points of MediaPipe's 478-landmark face mesh, and its left-right pairs.

Indices are MediaPipe's (``face_mesh_connections`` names the regions; 468–477 are the
irises when landmarks are refined). "Right" and "left" are the person's own: their
right eye (outer corner 33) is on the image's left in an unmirrored photo.

``BILATERAL_PAIRS`` and ``MIDLINE`` say which landmark mirrors which; each pair is
(the point on the person's right, its mirror on their left). They were found
by mirroring real frontal faces in their own frame and matching every point to its
mirror image; a test checks that the pairing maps the mesh's triangles onto its
triangles (all but the three quads whose diagonal the mesh draws the other way on each
side), so it follows the mesh's own structure, not one photo.
"""

from __future__ import annotations

# fmt: off
BILATERAL_PAIRS = (
    (3, 248), (7, 249), (20, 250), (21, 251), (22, 252), (23, 253), (24, 254), (25,
    255), (26, 256), (27, 257), (28, 258), (29, 259), (30, 260), (31, 261), (32, 262),
    (33, 263), (34, 264), (35, 265), (36, 266), (37, 267), (38, 268), (39, 269), (40,
    270), (41, 271), (42, 272), (43, 273), (44, 274), (45, 275), (46, 276), (47, 277),
    (48, 278), (49, 279), (50, 280), (51, 281), (52, 282), (53, 283), (54, 284), (55,
    285), (56, 286), (57, 287), (58, 288), (59, 289), (60, 290), (61, 291), (62, 292),
    (63, 293), (64, 294), (65, 295), (66, 296), (67, 297), (68, 298), (69, 299), (70,
    300), (71, 301), (72, 302), (73, 303), (74, 304), (75, 305), (76, 306), (77, 307),
    (78, 308), (79, 309), (80, 310), (81, 311), (82, 312), (83, 313), (84, 314), (85,
    315), (86, 316), (87, 317), (88, 318), (89, 319), (90, 320), (91, 321), (92, 322),
    (93, 323), (95, 324), (96, 325), (97, 326), (98, 327), (99, 328), (100, 329), (101,
    330), (102, 331), (103, 332), (104, 333), (105, 334), (106, 335), (107, 336), (108,
    337), (109, 338), (110, 339), (111, 340), (112, 341), (113, 342), (114, 343), (115,
    344), (116, 345), (117, 346), (118, 347), (119, 348), (120, 349), (121, 350), (122,
    351), (123, 352), (124, 353), (125, 354), (126, 355), (127, 356), (128, 357), (129,
    358), (130, 359), (131, 360), (132, 361), (133, 362), (134, 363), (135, 364), (136,
    365), (137, 366), (138, 367), (139, 368), (140, 369), (141, 370), (142, 371), (143,
    372), (144, 373), (145, 374), (146, 375), (147, 376), (148, 377), (149, 378), (150,
    379), (153, 380), (154, 381), (155, 382), (156, 383), (157, 384), (158, 385), (159,
    386), (160, 387), (161, 388), (162, 389), (163, 390), (165, 391), (166, 392), (167,
    393), (169, 394), (170, 395), (171, 396), (172, 397), (173, 398), (174, 399), (176,
    400), (177, 401), (178, 402), (179, 403), (180, 404), (181, 405), (182, 406), (183,
    407), (184, 408), (185, 409), (186, 410), (187, 411), (188, 412), (189, 413), (190,
    414), (191, 415), (192, 416), (193, 417), (194, 418), (196, 419), (198, 420), (201,
    421), (202, 422), (203, 423), (204, 424), (205, 425), (206, 426), (207, 427), (208,
    428), (209, 429), (210, 430), (211, 431), (212, 432), (213, 433), (214, 434), (215,
    435), (216, 436), (217, 437), (218, 438), (219, 439), (220, 440), (221, 441), (222,
    442), (223, 443), (224, 444), (225, 445), (226, 446), (227, 447), (228, 448), (229,
    449), (230, 450), (231, 451), (232, 452), (233, 453), (234, 454), (235, 455), (236,
    456), (237, 457), (238, 458), (239, 459), (240, 460), (241, 461), (242, 462), (243,
    463), (244, 464), (245, 465), (246, 466), (247, 467),
)
MIDLINE = (
    0, 1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 94, 151, 152, 164,
    168, 175, 195, 197, 199, 200,
)
# fmt: on

# Irises (centre, then the ring).
RIGHT_PUPIL = 468
LEFT_PUPIL = 473
IRIS_PAIR = (RIGHT_PUPIL, LEFT_PUPIL)

# Eyes: outer and inner corners, top of the upper lid, bottom of the lower lid.
RIGHT_EYE_OUTER, RIGHT_EYE_INNER, RIGHT_EYE_TOP, RIGHT_EYE_BOTTOM = 33, 133, 159, 145
LEFT_EYE_OUTER, LEFT_EYE_INNER, LEFT_EYE_TOP, LEFT_EYE_BOTTOM = 263, 362, 386, 374
RIGHT_EYE = (33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246)
LEFT_EYE = (263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466)

# Brows, along their upper edge from the outer end to the inner end.
RIGHT_BROW = (70, 63, 105, 66, 107)
LEFT_BROW = (300, 293, 334, 296, 336)
RIGHT_BROW_LOWER = (46, 53, 52, 65, 55)
LEFT_BROW_LOWER = (276, 283, 282, 295, 285)

# Midline: top of the forehead (the mesh's top, below the hairline), between the brows
# (glabella), the bridge between the eyes (nasion), nose tip, base of the nose
# (subnasale), top of the upper lip, the lips' meeting line, bottom of the lower lip,
# the chin's lowest point (menton).
FOREHEAD_TOP = 10
GLABELLA = 9
NASION = 168
NOSE_TIP = 1
SUBNASALE = 2
UPPER_LIP_TOP = 0
STOMION = 13
LOWER_LIP_BOTTOM = 17
MENTON = 152
MIDLINE_PROFILE = (
    10,
    151,
    9,
    8,
    168,
    6,
    197,
    195,
    5,
    4,
    1,
    19,
    94,
    2,
    164,
    0,
    11,
    12,
    13,
    14,
    15,
    16,
    17,
    18,
    200,
    199,
    175,
    152,
)

# The nose seen from the front: bridge, tip, wings and base (MediaPipe's nose region).
NOSE = (
    1,
    2,
    4,
    5,
    6,
    19,
    45,
    48,
    64,
    94,
    97,
    98,
    115,
    168,
    195,
    197,
    220,
    275,
    278,
    294,
    326,
    327,
    344,
    440,
)

# Widest points of the nose's wings (alare), the mouth's corners, the cheekbones
# (the face's width), the jaw's angles.
NOSE_WINGS = (98, 327)
MOUTH_CORNERS = (61, 291)
CHEEKBONES = (234, 454)
JAW_ANGLES = (172, 397)

# The face's outline, in order around it (from the forehead top, clockwise in the image).
FACE_OVAL = (
    10,
    338,
    297,
    332,
    284,
    251,
    389,
    356,
    454,
    323,
    361,
    288,
    397,
    365,
    379,
    378,
    400,
    377,
    152,
    148,
    176,
    149,
    150,
    136,
    172,
    58,
    132,
    93,
    234,
    127,
    162,
    21,
    54,
    103,
    67,
    109,
)
LIPS_OUTER = (
    61,
    185,
    40,
    39,
    37,
    0,
    267,
    269,
    270,
    409,
    291,
    375,
    321,
    405,
    314,
    17,
    84,
    181,
    91,
    146,
)


def _mirror_index() -> tuple[int, ...]:
    """For each of the 478 landmarks, the index of its mirror image (itself on the
    midline). The iris rings' points are not paired point by point: each ring maps onto
    itself, and only the pupils' centres swap."""
    index = list(range(478))
    for right, left in BILATERAL_PAIRS + (IRIS_PAIR,):
        index[right], index[left] = left, right
    return tuple(index)


#: ``mesh[MIRROR_INDEX]`` relabels the landmarks of a mirrored face as the face's own.
MIRROR_INDEX = _mirror_index()
