"""kexplain: why didn't my pod schedule?"""
