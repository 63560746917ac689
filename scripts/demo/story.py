"""The demo benchmark's content: eight weekly sessions in a community garden.

Maya joins the Willow Street community garden and chats with an assistant every
Saturday from April to late May 2024. This module holds the data only:

- ``SESSIONS``: the dialogue (round text plus the image ids shown in each round);
- ``IMAGES``: per image id, the caption a dense captioner would store and the
  ``visual_terms`` a native-visual retriever can "see" in the picture. Several captions
  leave out the decisive detail on purpose (a colour, a shelf, a stripe, a count), so
  text-only memories fail where native-visual ones succeed;
- ``MCQS``: the multiple-choice questions (point, clues, answer and three distractors);
- ``OPEN_TWIN_KEYS``: which MCQs also appear as open-ended twins, and in what order.

Several objects change state across sessions (the plot marker number, the shed door
colour, the compost bin's place, the watering day, the watering can Maya uses, the lot
across the street), which gives the Y3 questions stale and latest clues.
``build_dialog`` turns all of this into MemEye's dialog JSON structure.
"""

from __future__ import annotations

TASK_NAME = "Community_Garden"
TASK_ID = "community_garden"  # MemEye's task.name, the lower-cased task
CHARACTER = {"name": "Maya"}
IMAGE_DIR = f"image/{TASK_NAME}"

# (date, [(user text, assistant text, [image ids])]) per session D1..D8.
SESSIONS = [
    (
        "2024-04-06",
        [
            (
                (
                    "I just joined the Willow Street community garden! This is the view from the "
                    "front gate."
                ),
                "What a lovely spot. The raised beds look well cared for.",
                ["garden_gate_view"],
            ),
            (
                "And this is the marker on my very own plot.",
                "Congratulations on your first plot!",
                ["plot_marker_14"],
            ),
            (
                "The shed door was painted just before the season opened.",
                "A painted door makes the shed easy to spot from the beds.",
                ["shed_door_green"],
            ),
            (
                "Across the street there's this lot.",
                "Quite a contrast with the garden.",
                ["lot_parking"],
            ),
            (
                "Ruth, the coordinator, says work days are on Saturdays at nine.",
                "Saturday mornings are easy to keep free.",
                [],
            ),
            (
                "I'm planning tomatoes, beans and a few herbs for my first season.",
                "A classic and productive mix for a beginner.",
                [],
            ),
            (
                "Here's the map from the notice board so I don't get lost.",
                "Handy. Six beds and the shed, all labelled.",
                ["garden_map"],
            ),
        ],
    ),
    (
        "2024-04-13",
        [
            (
                "First work day today! Everybody showed up.",
                "What a turnout. It looks like a real team effort.",
                ["workday_rain"],
            ),
            (
                "Ruth showed us where the compost bin is.",
                "Good to know where the weeds and peelings go.",
                ["compost_left"],
            ),
            (
                "Inside the tool shed. Ruth says the spare gloves always go back in the same spot.",
                "Fixed spots are the only way a shared shed stays tidy.",
                ["shed_shelves"],
            ),
            (
                "There are three watering cans to borrow; I took the one with the yellow handle.",
                "Easy to recognise at a glance, then.",
                ["watering_cans"],
            ),
            (
                "Bought a tray of tomato seedlings at the market.",
                "They look sturdy. Tomatoes love this garden's sun.",
                ["tomato_tray_6"],
            ),
            (
                "Here's the watering rota on the chalkboard by the gate.",
                "A rota keeps everyone's beds alive on hot days.",
                ["rota_tue"],
            ),
            (
                "I'm sore from all the shovelling, but it felt good.",
                "Rest up. The first work day is always the hardest.",
                [],
            ),
        ],
    ),
    (
        "2024-04-20",
        [
            (
                "My plot marker survived the storm.",
                "A sturdy stake, then.",
                ["plot_marker_14_muddy"],
            ),
            (
                "Picked up a few more tomato seedlings.",
                "More tomatoes, more sauce.",
                ["tomato_tray_4"],
            ),
            (
                "I planted the beans in bed C today.",
                "Bed C gets the morning sun, so the beans should do well.",
                [],
            ),
            (
                "The seed swap had shelves of these jars of saved seeds.",
                "Saved seeds are a lovely way to share local varieties.",
                ["seed_jars_1_4"],
            ),
            (
                "We all crowded under the awning for the seed swap.",
                "Sounds cosy, and a good way to meet the neighbours.",
                ["seedswap_awning"],
            ),
            (
                "Ruth asked everyone to put their name on their tools.",
                "Name labels save a lot of arguments.",
                [],
            ),
            ("I'm reading up on companion planting.", "Basil and tomatoes are a famous pair.", []),
        ],
    ),
    (
        "2024-04-27",
        [
            (
                "They repainted the shed door this week.",
                "A fresh coat always lifts the whole garden.",
                ["shed_door_blue"],
            ),
            (
                "I'm keeping the bean seed packet for reference.",
                "Good idea, in case you want to buy the same variety again.",
                ["bean_packet"],
            ),
            (
                "The seed library shelf has more of those jars.",
                "A seed library is a great idea for a shared garden.",
                ["seed_jars_5_8"],
            ),
            ("The beans are already sprouting!", "That was quick. Warm soil helps.", []),
            (
                "All my tomato seedlings are in the ground now.",
                "Ten plants is a good start for one bed.",
                ["tomato_bed"],
            ),
            (
                "A neighbour offered me some rhubarb crowns.",
                "Rhubarb comes back every year, so give it a corner of its own.",
                [],
            ),
            (
                "I bought a kneeling pad and my knees are grateful.",
                "The best few pounds a gardener can spend.",
                [],
            ),
        ],
    ),
    (
        "2024-05-04",
        [
            (
                "Big change this week: they moved the compost bin.",
                "Hopefully the new spot is handier for everyone.",
                ["compost_right"],
            ),
            (
                "The yellow-handled can started leaking, so I switched to this one.",
                "Good swap. A leaky can is worse than none.",
                ["can_stripe"],
            ),
            (
                "Something is going on with the lot across the street.",
                "Looks like construction has started.",
                ["lot_construction"],
            ),
            (
                "My neighbour in the next plot only grows flowers.",
                "Flowers bring the pollinators your tomatoes need.",
                [],
            ),
            (
                "Another seed swap table, and more jars.",
                "Your seed collection is growing fast.",
                ["seed_jars_9_12"],
            ),
            ("I planted basil right next to the tomatoes.", "Companion planting in action.", []),
            ("The slugs found my lettuce.", "Beer traps or copper tape can help.", []),
        ],
    ),
    (
        "2024-05-11",
        [
            (
                "After the re-survey everyone got new plot markers.",
                "New markers make the map easier to follow.",
                ["plot_marker_23"],
            ),
            (
                "New rota: I swapped watering days with Ben.",
                "Swapping is what rotas are for.",
                ["rota_sat"],
            ),
            (
                "Staked all my tomato plants today.",
                "They will need the support once the fruit sets.",
                ["tomatoes_staked"],
            ),
            (
                "The seed library jars have been restocked.",
                "Good to see people sharing.",
                ["seed_jars_13_16"],
            ),
            ("Harvested the first radishes!", "Radishes are the gardener's quick reward.", []),
            ("Ben gave me some of his marigold seeds.", "Marigolds keep pests off tomatoes.", []),
            (
                "I'm thinking of entering the harvest fair.",
                "Your tomatoes could be contenders.",
                [],
            ),
        ],
    ),
    (
        "2024-05-18",
        [
            (
                "The committee voted and the shed door got repainted again.",
                "Third colour this season; it must be a popular topic.",
                ["shed_door_terracotta"],
            ),
            (
                "The sunflowers along the fence are taller than me now.",
                "Sunflowers grow astonishingly fast in May.",
                ["sunflowers"],
            ),
            ("The beans have reached the top of the trellis.", "Time to pinch out the tips.", []),
            (
                "There's a harvest fair planning meeting on Thursday.",
                "A good chance to volunteer for a stall.",
                [],
            ),
            (
                "Ruth will step down as coordinator at the end of the season.",
                "She'll be missed; she clearly holds the place together.",
                [],
            ),
            ("I made pesto from my basil.", "Nothing beats home-grown pesto.", []),
            (
                "Borrowed the wheelbarrow to move mulch.",
                "Mulch now saves a lot of watering later.",
                [],
            ),
        ],
    ),
    (
        "2024-05-25",
        [
            (
                "Look what opened across the street this morning!",
                "How convenient for a gardener.",
                ["lot_market"],
            ),
            (
                "My plot at harvest time, and today's pick.",
                "What a haul. The tomatoes look perfect.",
                ["plot_harvest", "tomato_basket"],
            ),
            ("Ruth gave me a spare key to the shed.", "That's a vote of confidence.", []),
            ("My tomatoes won second prize at the fair!", "Congratulations, well deserved.", []),
            (
                "I've signed up to help run the seed swap next spring.",
                "You've come a long way in one season.",
                [],
            ),
            (
                "Next year I want to try squash.",
                "Squash need room, so plan a whole corner for them.",
                [],
            ),
            (
                "Thanks for keeping me company all season.",
                "It was a pleasure following your garden grow.",
                [],
            ),
        ],
    ),
]

# image id -> (stored caption, words a native-visual retriever can match in the picture)
IMAGES = {
    "garden_gate_view": (
        (
            "A fenced community garden with six raised wooden beds, seen from the front gate; "
            "a small shed stands on the right."
        ),
        "community garden gate fence raised beds shed right side green door sign",
    ),
    "plot_marker_14": (
        "A wooden stake with a metal tag reading PLOT 14, stuck in dark soil.",
        "plot marker stake metal tag number 14 soil",
    ),
    "shed_door_green": (
        "The wooden door of a garden shed, freshly painted.",
        "shed door painted green colour wooden",
    ),
    "lot_parking": (
        "A paved lot with parking lines and three parked cars behind a low wall.",
        "lot street parking cars asphalt wall",
    ),
    "garden_map": (
        (
            "A hand-drawn garden map: beds A, B and C in the back row with the shed just right "
            "of bed C, beds D, E and F in the front row, and the gate at the bottom."
        ),
        "garden map beds labelled a b c d e f shed gate row left right corner",
    ),
    "workday_rain": (
        "A group of people standing between raised garden beds.",
        "work day people rain raining umbrellas wet weather puddles beds",
    ),
    "compost_left": (
        "A black plastic compost bin standing against a wooden fence.",
        "compost bin black back left corner fence garden beds shed",
    ),
    "shed_shelves": (
        "Wooden shelves inside a shed holding clay pots, a wicker basket and watering cans.",
        (
            "tool shed shelves inside gloves basket bottom shelf watering cans middle shelf "
            "pots top shelf"
        ),
    ),
    "watering_cans": (
        "Three green plastic watering cans standing in a row.",
        "three watering cans green yellow handle white stripe plain left middle right row",
    ),
    "tomato_tray_6": (
        "A black plastic tray holding six small tomato seedlings.",
        "tomato seedlings tray six plants black",
    ),
    "rota_tue": (
        "A chalkboard with a handwritten watering rota listing names and days.",
        "watering rota chalkboard names days ben maya lin omar saturday tuesday",
    ),
    "plot_marker_14_muddy": (
        "A mud-splashed plot marker reading PLOT 14 in a wet raised bed.",
        "plot marker stake tag 14 mud storm wet number",
    ),
    "tomato_tray_4": ("A small tray of four tomato seedlings.", "tomato seedlings tray four small"),
    "seed_jars_1_4": (
        "Four numbered glass jars of saved seeds; the lid of jar 3 is cracked.",
        "seed swap jars numbered glass lids 1 2 3 4 cracked lid",
    ),
    "seedswap_awning": (
        "People gathered under a striped awning outside a community hall.",
        "seed swap awning people hall rain raining wet weather puddles",
    ),
    "shed_door_blue": (
        "A garden shed door with a fresh coat of paint.",
        "shed door painted blue colour",
    ),
    "bean_packet": (
        "A paper seed packet with a drawing of green beans.",
        "bean seed packet green beans paper printed lot number",
    ),
    "seed_jars_5_8": (
        "Four numbered glass jars of seeds on a wooden shelf.",
        "seed library jars numbered glass lids shelf 5 6 7 8",
    ),
    "tomato_bed": (
        "Young tomato plants in a row along a raised bed.",
        "tomato plants seedlings bed planted row ten",
    ),
    "compost_right": (
        "A black compost bin beside the garden shed.",
        "compost bin black back right corner next shed moved garden beds",
    ),
    "can_stripe": (
        "A green plastic watering can next to a raised bed.",
        "watering can green white stripe bed",
    ),
    "lot_construction": (
        (
            "A lot across the street fenced off with orange construction barriers and a small "
            "digger."
        ),
        "lot street construction barriers orange digger",
    ),
    "seed_jars_9_12": (
        "Four numbered glass jars of seeds on a folding table.",
        "seed swap jars numbered glass lids table 9 10 11 12",
    ),
    "plot_marker_23": (
        "A new white stake with a green tag reading PLOT 23 in a raised bed.",
        "plot marker new white stake green tag number 23",
    ),
    "rota_sat": (
        "A chalkboard with the updated watering rota.",
        "watering rota chalkboard updated names days ben maya saturday tuesday",
    ),
    "tomatoes_staked": (
        "Tomato plants tied to wooden stakes in a raised bed.",
        "tomato plants stakes staked bed nine",
    ),
    "seed_jars_13_16": (
        "Four numbered glass jars of seeds lined up on a shelf.",
        "seed library jars numbered glass lids shelf 13 14 15 16",
    ),
    "shed_door_terracotta": (
        "A garden shed door, newly repainted.",
        "shed door repainted terracotta orange colour",
    ),
    "sunflowers": ("Tall sunflowers growing along a wooden fence.", "sunflowers fence tall yellow"),
    "lot_market": (
        "Rows of stalls under striped awnings with people shopping for produce.",
        "lot street farmers market stalls awnings produce shoppers",
    ),
    "plot_harvest": (
        "A raised bed full of leafy plants and ripe tomatoes.",
        "plot harvest bed tomatoes ripe plants",
    ),
    "tomato_basket": ("A wicker basket filled with red tomatoes.", "basket tomatoes red harvest"),
}

# Multiple-choice questions: (key, point, question, answer, three distractors, clue rounds).
# The distractor order fixes the four rotations exactly like MemEye's samples.
MCQS = [
    (
        "space_kind",
        [["X1"], ["Y1"]],
        "What kind of community space has Maya joined?",
        "A community garden",
        ["A climbing gym", "A public library", "A coworking office"],
        ["D1:1"],
    ),
    (
        "gloves_shelf",
        [["X2"], ["Y1"]],
        "On which shelf of the tool shed are the spare gloves kept?",
        "The bottom shelf",
        ["The top shelf", "The middle shelf", "On a hook by the door"],
        ["D2:3"],
    ),
    (
        "cracked_jar",
        [["X3"], ["Y1"]],
        "At the seed swap, which numbered jar had a cracked lid?",
        "Jar 3",
        ["Jar 1", "Jar 2", "Jar 4"],
        ["D3:4"],
    ),
    (
        "bean_lot",
        [["X4"], ["Y1"]],
        "What lot number is printed on Maya's bean seed packet?",
        "B-27",
        ["B-21", "8-27", "B-72"],
        ["D4:2"],
    ),
    (
        "rain_both",
        [["X1"], ["Y2"]],
        "What was the weather like at both the first work day and the seed swap?",
        "It was raining both times",
        [
            "It was sunny both times",
            "Sunny at the work day, raining at the seed swap",
            "It was snowing both times",
        ],
        ["D2:1", "D3:5"],
    ),
    (
        "beans_bed",
        [["X2"], ["Y2"]],
        "Where is the bed with Maya's beans relative to the shed?",
        "Directly to the left of the shed",
        [
            "In front of the shed, by the gate",
            "In the far-left corner, away from the shed",
            "Behind the shed",
        ],
        ["D1:7", "D3:3"],
    ),
    (
        "can_from_shed",
        [["X3"], ["Y2"]],
        (
            "Is the watering can Maya switched to one of the three shared cans from the shed, "
            "and if so which one?"
        ),
        "Yes, the one with the white stripe",
        [
            "Yes, the plain one with no markings",
            "No, it is a new can she bought",
            "Yes, the one with the yellow handle",
        ],
        ["D2:4", "D5:2"],
    ),
    (
        "seedlings_total",
        [["X4"], ["Y2"]],
        "How many tomato seedlings did Maya buy in total across her two purchases?",
        "10",
        ["6", "4", "12"],
        ["D2:5", "D3:2"],
    ),
    (
        "lot_now",
        [["X1"], ["Y3"]],
        "What is the lot across the street from the garden used for now?",
        "A farmers' market",
        ["A parking lot", "A construction site", "A playground"],
        ["D1:4", "D5:3", "D8:1"],
    ),
    (
        "compost_now",
        [["X2"], ["Y3"]],
        "Where is the compost bin now?",
        "In the back-right corner, next to the shed",
        ["In the back-left corner, against the fence", "By the front gate", "Between beds B and E"],
        ["D2:2", "D5:1"],
    ),
    (
        "can_now",
        [["X3"], ["Y3"]],
        "Which watering can does Maya use now?",
        "The one with the white stripe",
        [
            "The one with the yellow handle",
            "The plain one with no markings",
            "A metal can from home",
        ],
        ["D2:4", "D5:2"],
    ),
    (
        "plot_number_now",
        [["X4"], ["Y3"]],
        "What number is on Maya's plot marker now?",
        "23",
        ["14", "32", "41"],
        ["D1:2", "D3:1", "D6:1"],
    ),
    (
        "door_colour_now",
        [["X4"], ["Y3"]],
        "What colour is the shed door now?",
        "Terracotta orange",
        ["Forest green", "Sky blue", "Mustard yellow"],
        ["D1:3", "D4:1", "D7:1"],
    ),
    (
        "watering_day_now",
        [["X4"], ["Y3"]],
        "On which day of the week is Maya's watering turn now?",
        "Saturday",
        ["Tuesday", "Thursday", "Sunday"],
        ["D2:6", "D6:2"],
    ),
    (
        "lot_first",
        [["X1"], ["Y1"]],
        "What was the lot across the street when Maya joined the garden?",
        "A parking lot",
        ["A farmers' market", "A construction site", "A playground"],
        ["D1:4"],
    ),
    (
        "lot_during_leak",
        [["X1"], ["Y2"]],
        (
            "What was happening on the lot across the street in the week Maya's yellow-handled "
            "can started leaking?"
        ),
        "Construction work behind barriers",
        ["A farmers' market was running", "Cars were parked there", "A street party"],
        ["D5:2", "D5:3"],
    ),
    (
        "stripe_can_position",
        [["X2", "X3"], ["Y1"]],
        ("In the photo of the three shared watering cans, where is the can with the white stripe?"),
        "On the right",
        ["On the left", "In the middle", "There is no striped can"],
        ["D2:4"],
    ),
    (
        "name_above_maya",
        [["X2", "X4"], ["Y1"]],
        "On the first watering rota chalkboard, whose name is written directly above Maya's?",
        "Ben",
        ["Lin", "Omar", "Ruth"],
        ["D2:6"],
    ),
    (
        "ben_day_before_swap",
        [["X2", "X4"], ["Y2"]],
        "Before the swap, which day was the watering turn of the person Maya swapped with?",
        "Saturday",
        ["Tuesday", "Thursday", "Sunday"],
        ["D2:6", "D6:2"],
    ),
    (
        "first_tray_count",
        [["X4"], ["Y1"]],
        "How many seedlings were in the first tray of tomatoes Maya bought?",
        "6",
        ["4", "8", "10"],
        ["D2:5"],
    ),
    (
        "door_colour_first",
        [["X4"], ["Y1"]],
        "What colour was the shed door when Maya joined the garden?",
        "Forest green",
        ["Olive green", "Teal", "Mint green"],
        ["D1:3"],
    ),
    (
        "can_shelf_borrowed",
        [["X2"], ["Y2"]],
        (
            "Maya took one of the three watering cans to borrow on the first work day; from "
            "which shelf of the shed did it come?"
        ),
        "The middle shelf",
        ["The top shelf", "The bottom shelf", "From a hook on the wall"],
        ["D2:3", "D2:4"],
    ),
    (
        "tomato_plants_now",
        [["X4"], ["Y3"]],
        "How many tomato plants are growing in Maya's bed now?",
        "9",
        ["10", "6", "12"],
        ["D4:5", "D6:3"],
    ),
    (
        "shed_side",
        [["X2"], ["Y1"]],
        "In the photo from the front gate, which side of the garden is the shed on?",
        "On the right",
        ["On the left", "In the middle, straight ahead", "There is no shed in that photo"],
        ["D1:1"],
    ),
    (
        "jar_reappear",
        [["X3"], ["Y2"]],
        (
            "Did the jar with the cracked lid from the seed swap show up again on the seed "
            "library shelf?"
        ),
        "No, none of the library jars has a cracked lid",
        ["Yes, as jar 7", "Yes, as jar 5", "Yes, with a new lid"],
        ["D3:4", "D4:3"],
    ),
    (
        "marker_style_now",
        [["X3"], ["Y2", "Y3"]],
        "What does the stake marking Maya's plot look like now?",
        "A white stake with a green tag",
        ["A wooden stake with a metal tag", "A painted rock", "A flag on a bamboo cane"],
        ["D1:2", "D3:1", "D6:1"],
    ),
    (
        "bed_front_left",
        [["X2"], ["Y1"]],
        "On the garden map, which bed is in the front-left corner?",
        "Bed D",
        ["Bed A", "Bed F", "Bed C"],
        ["D1:7"],
    ),
]

# Open-ended twins follow the MCQs in the QA list (idx 28..47), in this order. The order
# puts the compost question at idx 37, the README's recency re-ranking example.
OPEN_TWIN_KEYS = [
    "space_kind",
    "gloves_shelf",
    "cracked_jar",
    "bean_lot",
    "rain_both",
    "beans_bed",
    "can_from_shed",
    "seedlings_total",
    "lot_now",
    "compost_now",
    "can_now",
    "plot_number_now",
    "door_colour_now",
    "watering_day_now",
    "name_above_maya",
    "ben_day_before_swap",
    "door_colour_first",
    "can_shelf_borrowed",
    "tomato_plants_now",
    "lot_first",
]


def round_records() -> list[dict]:
    """Every round in dialogue order, with its id, session, 1-based position and images."""
    records = []
    for session_number, (date, rounds) in enumerate(SESSIONS, start=1):
        session_id = f"D{session_number}"
        for round_number, (user, assistant, image_ids) in enumerate(rounds, start=1):
            records.append(
                {
                    "round_id": f"{session_id}:{round_number}",
                    "session_id": session_id,
                    "date": date,
                    "position": len(records) + 1,
                    "user": user,
                    "assistant": assistant,
                    "image_ids": list(image_ids),
                    "captions": [IMAGES[image_id][0] for image_id in image_ids],
                    "visual_terms": [IMAGES[image_id][1] for image_id in image_ids],
                }
            )
    return records


def rotations(answer: str, distractors: list[str]) -> list[dict]:
    """Four option dicts; rotation r puts the correct answer at letter r (A, B, C, D)."""
    base = [answer] + list(distractors)
    letters = "ABCD"
    result = []
    for r in range(4):
        shifted = base[-r:] + base[:-r] if r else list(base)
        option = {letter: text for letter, text in zip(letters, shifted, strict=False)}
        option["answer"] = letters[r]
        result.append(option)
    return result


def qa_entries() -> list[dict]:
    """All QAs in dataset order: the MCQs, then their open-ended twins.

    Each entry carries the QA dict exactly as it goes into the dialog JSON (``qa``) plus
    bookkeeping the generator needs (``key``, ``idx``, ``mode``, ``distractors``).
    """
    by_key = {mcq[0]: mcq for mcq in MCQS}
    entries = []
    for key, point, question, answer, distractors, clues in MCQS:
        entries.append((key, "mcq", point, question, answer, distractors, clues))
    for key in OPEN_TWIN_KEYS:
        _, point, question, answer, distractors, clues = by_key[key]
        entries.append((key, "open", point, question, answer, distractors, clues))

    result = []
    for idx, (key, mode, point, question, answer, distractors, clues) in enumerate(
        entries, start=1
    ):
        sessions = sorted({clue.split(":")[0] for clue in clues}, key=lambda s: int(s[1:]))
        qa = {
            "point": point,
            "question": question,
            "answer": answer,
            "session_id": sessions,
            "clue": list(clues),
        }
        if mode == "mcq":
            qa["options"] = rotations(answer, distractors)
        result.append({"idx": idx, "key": key, "mode": mode, "distractors": distractors, "qa": qa})
    return result


def build_dialog() -> dict:
    """The complete MemEye dialog JSON object for the task."""
    sessions = []
    for record in round_records():
        if not sessions or sessions[-1]["session_id"] != record["session_id"]:
            sessions.append(
                {"session_id": record["session_id"], "date": record["date"], "dialogues": []}
            )
        dialogue = {
            "round": record["round_id"],
            "user": record["user"],
            "assistant": record["assistant"],
        }
        if record["image_ids"]:
            dialogue["input_image"] = [f"{IMAGE_DIR}/{i}.png" for i in record["image_ids"]]
            dialogue["image_caption"] = list(record["captions"])
            dialogue["image_id"] = list(record["image_ids"])
        sessions[-1]["dialogues"].append(dialogue)
    return {
        "character_profile": dict(CHARACTER),
        "multi_session_dialogues": sessions,
        "human-annotated QAs": [entry["qa"] for entry in qa_entries()],
    }
